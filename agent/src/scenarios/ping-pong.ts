import type { PingPongScenario } from "@throng/protocol/plan";
import type { TransportConnection } from "../transports/transport";
import { createSeqReader, prepareTemplate, type SeqReader } from "./message-template";
import { compileResponders } from "./respond-rules";
import { compileReplyCheck } from "./reply-rule";
import { clientSet, nowMicros, openClient, type ScenarioContext, type ScenarioRunner } from "./scenario";
import { compileSession } from "./session";
import { TIMER_RESOLUTION_MS, TimerWheel, wheelTimer } from "./timer-wheel";

/** The built-in ping's size when the plan gives none (it must then give a message template: the plan's check). */
const DEFAULT_PING_BYTES = 64;
/** A ping unanswered this long is counted as an error so the client can send again. */
const DEFAULT_PONG_TIMEOUT_MS = 30_000;
/** Over UDP a pong this late is counted lost, so one dropped datagram does not stop a client for 30 s. */
const DEFAULT_DATAGRAM_TIMEOUT_MS = 1_000;
/** A send this much after its intended time counts as late (timer or event-loop lag). */
export const LATE_SEND_MS = 5;
const PAD = "x".repeat(65_536);
/** A slot (one wakeup) holds at most about this many pings; see phaseGridMs. */
const MAX_PINGS_PER_SLOT = 100;
const MAX_PHASE_GRID_MS = 5;

/**
 * The grid, in ms, that fixed-interval clients' first pings are put on. Every wakeup costs the agent a context
 * switch, an epoll_wait and timers (~100 µs here), and the target one wakeup of its own: on a 1 ms grid, 1,000
 * clients cost ~1,100 wakeups a second for 1,000 pings, and 19.5k clients still woke the agent every millisecond
 * for ~20 pings, about a fifth of its CPU. On a grid of G ms the pings of G milliseconds share a wakeup (19.5k
 * clients, G=5: 41–43% -> 33–35% of a core). G divides the interval, so every later ping stays on the grid, and a
 * ping's intended time is the grid point it is sent at: nothing is sent late because of it. G stays small because
 * a slot's pings reach the server as one burst (19.5k: p50 0.20 -> 0.37–0.44 ms, the target answering 100 pings
 * in a row), and at most ~MAX_PINGS_PER_SLOT share a slot, so at high rates (the saturation search) G is 1.
 * Pongs are timed by their arrival (the kernel's stamp, native-io.ts), not by when the busy agent reads them.
 */
export function phaseGridMs(intervalMs: number, clients: number): number {
  const wanted = Math.min(MAX_PHASE_GRID_MS, Math.floor((MAX_PINGS_PER_SLOT * intervalMs) / Math.max(1, clients)));
  for (let grid = wanted; grid > 1; grid -= 1) if (intervalMs % grid === 0) return grid;
  return 1;
}

/**
 * The ping frame: `{"type":"ping","seq":N,"client":C,"pad":"xx…"}`, exactly `messageBytes` long; with
 * `responseBytes` it carries `"rb":R`, which the reference target pads its pong to.
 * When `messageBytes` is smaller than the frame without padding, the frame is sent unpadded.
 */
export function pingFrame(seq: number, client: number, messageBytes: number, responseBytes?: number): string {
  const head = `{"type":"ping","seq":${seq},"client":${client},${responseBytes ? `"rb":${responseBytes},` : ""}"pad":"`;
  const tail = `"}`;
  // Every character is ASCII, so string length equals byte length.
  const padLength = Math.max(0, messageBytes - head.length - tail.length);
  return head + PAD.slice(0, padLength) + tail;
}

/** The pong's seq, or undefined when the frame is not a pong. Throws on a frame that is not JSON. */
export function pongSeq(data: Buffer): number | undefined {
  const message = JSON.parse(data.toString("utf8")) as { type?: unknown; seq?: unknown } | null;
  if (message === null || typeof message !== "object" || message.type !== "pong") return undefined;
  return typeof message.seq === "number" ? message.seq : undefined;
}

/**
 * Where a ping's corrected latency counts from: its intended time, but no earlier than the last moment the timer
 * could have sent it on time (its time plus the timer's resolution), and never before it really left. A timer
 * wakes up to ~1 ms after its time on an idle loop (Node's timers are whole milliseconds), so counting from the
 * intended time itself put the corrected p50 ~0.6–1 ms above the raw p50 with no stall at all; a stall still
 * counts in full, less that millisecond.
 */
export function correctedFrom(intendedAt: number, sentAt: number): number {
  return Math.min(sentAt, intendedAt + TIMER_RESOLUTION_MS);
}

/**
 * A client's numbers as fields of one object. A double in a field is updated in place; in a closure variable each
 * new value was a fresh heap number that lived a whole interval, so every young-generation collection copied and
 * promoted ~20k of them a second at 19.5k clients (with the in-flight record object per ping).
 */
class PingState {
  nextSeq = 0;
  lastAnswered = -1;
  /** Its schedule counts toward the scheduled sends (fixed interval, connected). */
  scheduled = false;
  /** The ping in flight: its seq, send time and where its corrected latency counts from; `inFlight` says whether there is one. */
  inFlight = false;
  seq = 0;
  // Fractional initial values make V8 lay these out as double fields from the start, not as small integers that
  // change the object's shape at the first real time.
  sentAt = 0.5;
  intendedAt = 0.5;
  nextDueAt = 0.5;
}

/**
 * Each client keeps one ping in flight. Fixed interval: pings are due at open + k·intervalMs (an open schedule);
 * a due ping that finds the previous one unanswered is skipped, and the corrected histogram back-fills it, so a
 * stall shows. Think time: the next ping goes a random [min,max] ms after each pong (a closed model).
 */
export function createPingPong(scenario: PingPongScenario, context: ScenarioContext): ScenarioRunner {
  const seqOf: SeqReader = scenario.match ? (createSeqReader(scenario.match, context.wire?.decodeReply) ?? orderReader()) : pongSeqSafe;
  const ping = scenario.message ? prepareTemplate(scenario.message, context.wire) : undefined;
  const heartbeatMessage = scenario.heartbeat?.message ? prepareTemplate(scenario.heartbeat.message, context.wire) : undefined;
  // Templates without {{vars.*}} are built once here; with them, once per client when its session is done.
  const sharedPing = ping?.usesVars ? undefined : ping?.bind();
  const sharedHeartbeat = heartbeatMessage?.usesVars ? undefined : heartbeatMessage?.bind();
  const session = scenario.session?.length ? { steps: compileSession(scenario.session, { ...(context.wire ? { wire: context.wire } : {}) }) } : undefined;
  const goodReply = compileReplyCheck(scenario.reply, context.wire?.decodeReply);
  const respond = compileResponders(scenario.respond, context.wire);
  const messageBytes = scenario.messageBytes ?? DEFAULT_PING_BYTES;
  const random = context.random ?? Math.random;
  const timeoutMs = scenario.timeoutMs ?? (context.datagram ? DEFAULT_DATAGRAM_TIMEOUT_MS : DEFAULT_PONG_TIMEOUT_MS);
  const { metrics } = context;
  // Fixed-interval pings of every client run off one wheel: one wakeup sends every ping due in that millisecond.
  const wheel = new TimerWheel();
  const grid = context.clients ? phaseGridMs(scenario.intervalMs, context.clients) : 1;
  // Every message a fixed-interval client's schedule calls for: its pings and its heartbeats.
  const scheduledPerSecond = 1000 / scenario.intervalMs + (scenario.heartbeat ? 1000 / scenario.heartbeat.intervalMs : 0);

  return clientSet((index) => {
    const state = new PingState();
    let timer: NodeJS.Timeout | undefined;
    const due = wheelTimer(() => onDue());
    let heartbeat: NodeJS.Timeout | undefined;
    let connection: TransportConnection | undefined;
    let buildPing = sharedPing;
    let buildHeartbeat = sharedHeartbeat;

    const send = (intendedAt: number) => {
      const seq = state.nextSeq;
      const frame = buildPing ? buildPing({ seq, sentAtUs: nowMicros(), client: index }) : pingFrame(seq, index, messageBytes, scenario.responseBytes);
      const sentAt = performance.now();
      if (!connection?.send(frame)) return;
      if (sentAt - intendedAt > LATE_SEND_MS) metrics.lateSend();
      state.inFlight = true;
      state.seq = seq;
      state.sentAt = sentAt;
      state.intendedAt = correctedFrom(intendedAt, sentAt);
      state.nextSeq = seq + 1;
      metrics.messageSent(frame.length);
    };
    const timedOut = (now: number) => {
      if (!state.inFlight || now - state.sentAt < timeoutMs) return false;
      if (context.datagram) metrics.lost(1);
      else metrics.error("timeout");
      state.inFlight = false;
      return true;
    };
    const onDue = () => {
      const now = performance.now();
      timedOut(now);
      if (state.inFlight) metrics.skippedSend();
      else send(state.nextDueAt);
      // Self-correcting: the schedule is open + k·interval, never "interval after the timer fired".
      state.nextDueAt += scenario.intervalMs;
      while (state.nextDueAt <= now) {
        state.nextDueAt += scenario.intervalMs;
        metrics.skippedSend();
      }
      wheel.set(due, state.nextDueAt);
    };
    const thinkThenSend = () => {
      const { minMs, maxMs } = scenario.thinkTime!;
      const dueAt = performance.now() + minMs + random() * (maxMs - minMs);
      clearTimeout(timer);
      timer = setTimeout(() => {
        send(dueAt);
        // A lost pong must not end the client's pinging.
        timer = setTimeout(() => timedOut(performance.now()) && thinkThenSend(), timeoutMs);
      }, dueAt - performance.now());
    };

    return openClient(context, index, {
      ...(session ? { session } : {}),
      ...(respond ? { respond } : {}),
      onOpen(opened, done) {
        connection = opened;
        if (ping?.usesVars) buildPing = ping.bind(done?.vars);
        if (heartbeatMessage?.usesVars) buildHeartbeat = heartbeatMessage.bind(done?.vars);
        if (scenario.heartbeat) {
          heartbeat = setInterval(() => {
            const frame = buildHeartbeat ? buildHeartbeat({ seq: 0, sentAtUs: nowMicros(), client: index }) : `{"type":"heartbeat","client":${index}}`;
            if (opened.send(frame)) metrics.messageSent(frame.length);
          }, scenario.heartbeat.intervalMs);
        }
        if (scenario.thinkTime) return thinkThenSend();
        // An open schedule: its sends are counted from the rate while the client is connected, not from the wheel.
        metrics.sendRate(scheduledPerSecond);
        state.scheduled = true;
        // A random first offset keeps clients from sending in lockstep; on the grid, several share a wakeup.
        state.nextDueAt = Math.ceil((performance.now() + random() * scenario.intervalMs) / grid) * grid;
        wheel.set(due, state.nextDueAt);
      },
      onMessage(data, receivedAt) {
        const seq = seqOf(data);
        if (seq === undefined && !(seqOf === orderSentinel)) return;
        if (seq !== undefined && seq === state.lastAnswered) return metrics.duplicate();
        // A pong for a ping already given up on (UDP reordering or a very late answer).
        if (seq !== undefined && seq < (state.inFlight ? state.seq : state.nextSeq)) return metrics.outOfOrder();
        if (!state.inFlight || (seq !== undefined && seq !== state.seq)) return;
        state.lastAnswered = state.seq;
        state.inFlight = false;
        // A bad reply still answers the ping (the client goes on), but it is an error, not a round trip.
        if (goodReply && !goodReply(data)) metrics.error("bad-reply");
        else {
          metrics.roundTripMicros((receivedAt - state.sentAt) * 1000);
          const interval = scenario.thinkTime ? undefined : scenario.intervalMs * 1000;
          metrics.correctedRoundTripMicros((receivedAt - state.intendedAt) * 1000, interval);
        }
        if (scenario.thinkTime) thinkThenSend();
      },
      onStop(atRunEnd) {
        // A ping past its timeout is a timeout (or lost) as it would have been at its next due time; one still
        // within it was cut short by the run's end, not by the server.
        if (!atRunEnd || timedOut(performance.now()) || !state.inFlight) return;
        state.inFlight = false;
        metrics.inFlightAtEnd(1);
      },
      onEnd() {
        clearTimeout(timer);
        wheel.clear(due);
        clearInterval(heartbeat);
        if (state.scheduled) metrics.sendRate(-scheduledPerSecond);
        state.scheduled = false;
      },
    });
  });
}

const PONG_HEAD = Buffer.from('{"type":"pong","seq":');

/** A byte loop: Buffer.compare's argument checks cost more than the comparison on a 21-byte head. */
function startsWithPongHead(data: Buffer): boolean {
  if (data.length <= PONG_HEAD.length) return false;
  for (let i = 0; i < PONG_HEAD.length; i += 1) if (data[i] !== PONG_HEAD[i]) return false;
  return true;
}

/** The reference target's pong starts with a fixed head: read its seq without a JSON parse (the agent's hot path). */
export function pongSeqSafe(data: Buffer): number | undefined {
  if (startsWithPongHead(data)) {
    let seq = 0;
    let at = PONG_HEAD.length;
    for (let byte = data[at]!; byte >= 0x30 && byte <= 0x39; byte = data[++at]!) seq = seq * 10 + (byte - 0x30);
    if (at > PONG_HEAD.length) return seq;
  }
  try {
    return pongSeq(data);
  } catch {
    return undefined;
  }
}

/** In-order matching: any response answers the one ping in flight. */
const orderSentinel: SeqReader = () => undefined;
function orderReader(): SeqReader {
  return orderSentinel;
}
