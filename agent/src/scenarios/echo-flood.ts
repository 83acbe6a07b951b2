import type { EchoFloodScenario } from "@throng/protocol/plan";
import { FixedMessage, type TransportConnection } from "../transports/transport";
import { createSeqReader, prepareTemplate } from "@throng/wire/message-template";
import { compileResponders } from "./respond-rules";
import { BAD_REPLY, compileReplyCheck } from "./reply-rule";
import { clientMetrics, clientSet, nowMicros, openClient, type ScenarioContext, type ScenarioRunner } from "./scenario";
import { compileSession } from "./session";

/**
 * Each connection sends as fast as the server echoes: up to `maxInFlight` unanswered messages, one message per
 * send call, the next one sent the moment an echo arrives. Echoes match sends first in, first out (or by seq).
 */
export function createEchoFlood(scenario: EchoFloodScenario, context: ScenarioContext): ScenarioRunner {
  const window = scenario.maxInFlight ?? 1;
  const template = scenario.message ? prepareTemplate(scenario.message, context.wire) : undefined;
  // Without {{vars.*}} the template is built once here; with them, once per client when its session is done.
  const shared = template?.usesVars ? undefined : template?.bind();
  const session = scenario.session?.length
    ? { steps: compileSession(scenario.session, { ...(context.wire ? { wire: context.wire } : {}) }) }
    : undefined;
  const goodReply = compileReplyCheck(scenario.reply, context.wire?.decodeReply);
  const respond = compileResponders(scenario.respond, context.wire);
  const seqOf = scenario.match ? createSeqReader(scenario.match, context.wire?.decodeReply) : undefined;
  // The default payload never changes: building (and framing) it once keeps the agent's cost per echo to the send itself.
  const fixed = new FixedMessage(Buffer.alloc(scenario.messageBytes, 0x65));

  return clientSet((index) => {
    const metrics = clientMetrics(context, index);
    let connection: TransportConnection | undefined;
    // Send times of unanswered messages, oldest first; a ring keeps it allocation-free.
    const sentAt = new Float64Array(window);
    const seqs = new Float64Array(window);
    let head = 0;
    let count = 0;
    let nextSeq = 0;
    let build = shared;

    const sendOne = () => {
      const built = build?.({ seq: nextSeq, sentAtUs: nowMicros(), client: index });
      if (!connection?.send(built ?? fixed)) return false;
      const slot = (head + count) % window;
      sentAt[slot] = performance.now();
      seqs[slot] = nextSeq++;
      count += 1;
      metrics.messageSent(built ? built.length : fixed.payload.length);
      return true;
    };
    const fill = () => {
      while (count < window && sendOne()) {
        // Bounded by the window.
      }
    };

    return openClient(context, index, {
      ...(session ? { session } : {}),
      ...(respond ? { respond } : {}),
      onOpen(opened, done) {
        connection = opened;
        if (template?.usesVars) build = template.bind(done?.vars);
        fill();
      },
      onMessage(data, receivedAt) {
        if (count === 0) return metrics.error("unexpected-message", index, "a message came with no echo awaited", data);
        if (seqOf) {
          const seq = seqOf(data);
          // Drop everything older than the answered seq: those echoes are lost or out of order.
          while (count > 0 && seq !== undefined && seqs[head]! < seq) {
            head = (head + 1) % window;
            count -= 1;
            metrics.lost(1);
          }
          if (count === 0 || seq !== seqs[head])
            return metrics.error(
              "unmatched-echo",
              index,
              "an echo whose sequence number no message in flight has",
              data,
            );
        }
        // A bad reply still answers its message (the client goes on), but it is an error, not a round trip.
        if (goodReply && !goodReply(data)) metrics.error("bad-reply", index, BAD_REPLY, data);
        else metrics.roundTripMicros((receivedAt - sentAt[head]!) * 1000);
        head = (head + 1) % window;
        count -= 1;
        fill();
      },
      onStop(atRunEnd) {
        if (atRunEnd && count > 0) metrics.inFlightAtEnd(count);
        count = 0;
      },
    });
  });
}
