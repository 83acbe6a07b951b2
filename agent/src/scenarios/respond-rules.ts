import type { RespondRules } from "@throng/protocol/plan";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import type { TransportConnection } from "../transports/transport";
import { prepareTemplate, type MessageBuilder } from "@throng/wire/message-template";
import { compileReplyRule, type ReplyMatcher } from "./reply-rule";
import type { WireFormat } from "@throng/wire/wire-format";

// A scenario's `respond` rules (docs/protocols.md, "Answering the server's keep-alives"): a received message that
// matches one is answered at once and goes no further. openClient (scenario.ts) runs them before the session and the
// scenario see the message.

/** A scenario's respond rules, compiled once per shard: their matchers and their answers' builders. */
export interface Responders {
  readonly rules: readonly { when: ReplyMatcher; send: MessageBuilder }[];
}

/** One client's answering: how many answers it sent ({{seq}} of the next), and its {{client}} and {{room}}. */
export interface Answering {
  answered: number;
  readonly client: number;
  readonly room?: number;
}

/** Compiles the rules; undefined when the scenario has none, so a client then pays nothing per message. */
export function compileResponders(rules: RespondRules | undefined, wire?: WireFormat): Responders | undefined {
  if (!rules?.length) return undefined;
  return {
    // The schema refuses {{vars.*}} in an answer: it may go out before the session captured them.
    rules: rules.map((rule) => ({
      when: compileReplyRule(rule.when, wire?.decodeReply),
      send: prepareTemplate(rule.send, wire).bind(),
    })),
  };
}

/**
 * Answers `data` when a rule matches it (the first that does), counting the answer in messagesSent; true when it
 * matched, whether or not the connection took the answer (it is closing).
 */
export function answer(
  responders: Responders,
  data: Buffer,
  connection: TransportConnection,
  client: Answering,
  metrics: ScenarioMetrics,
): boolean {
  for (const rule of responders.rules) {
    if (!rule.when(data)) continue;
    const message = rule.send({
      seq: client.answered,
      sentAtUs: Math.round((performance.timeOrigin + performance.now()) * 1000),
      client: client.client,
      ...(client.room !== undefined ? { room: client.room } : {}),
    });
    if (connection.send(message)) {
      client.answered += 1;
      metrics.messageSent(message.length);
    }
    return true;
  }
  return false;
}
