import type { PingPongScenario } from "@throng/protocol/plan";
import { scheduledSendsPerClient } from "@throng/protocol/planned-load";
import type { TransportConnection } from "../transports/transport";
import {
  createSeqReader,
  prepareTemplate,
  type MessageBuilder,
  type PreparedTemplate,
  type SeqReader,
} from "@throng/wire/message-template";
import { compileResponders, type Responders } from "./respond-rules";
import { BAD_REPLY, compileReplyCheck } from "./reply-rule";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import {
  clientMetrics,
  clientSet,
  nowMicros,
  openClient,
  type ClientHandlers,
  type ScenarioContext,
  type ScenarioRunner,
} from "./scenario";
import { compileSession, type CompiledSession, type SessionDone } from "./session";
import { TIMER_RESOLUTION_MS, TimerWheel, type WheelTimer } from "../transports/timer-wheel";

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

/** What every client of a shard shares: the plan's scenario compiled once, the metrics and the timer wheel. */
interface PingShard {
  readonly scenario: PingPongScenario;
  readonly context: ScenarioContext;
  readonly seqOf: SeqReader;
  readonly ping: PreparedTemplate | undefined;
  readonly heartbeatMessage: PreparedTemplate | undefined;
  readonly sharedPing: MessageBuilder | undefined;
  readonly sharedHeartbeat: MessageBuilder | undefined;
  readonly session: { steps: CompiledSession } | undefined;
  readonly goodReply: ((data: Buffer) => boolean) | undefined;
  readonly respond: Responders | undefined;
  readonly messageBytes: number;
  readonly random: () => number;
  readonly timeoutMs: number;
  /** A timeout's words in its error sample, written once per shard. */
  readonly timedOutMessage: string;
  readonly wheel: TimerWheel;
  readonly grid: number;
  readonly scheduledPerSecond: number;
}

/**
 * Each client keeps one ping in flight. Fixed interval: pings are due at open + k·intervalMs (an open schedule);
 * a due ping that finds the previous one unanswered is skipped, and the corrected histogram back-fills it, so a
 * stall shows. Think time: the next ping goes a random [min,max] ms after each pong (a closed model).
 */
export function createPingPong(scenario: PingPongScenario, context: ScenarioContext): ScenarioRunner {
  const ping = scenario.message ? prepareTemplate(scenario.message, context.wire) : undefined;
  const heartbeatMessage = scenario.heartbeat?.message
    ? prepareTemplate(scenario.heartbeat.message, context.wire)
    : undefined;
  const session = scenario.session?.length
    ? { steps: compileSession(scenario.session, { ...(context.wire ? { wire: context.wire } : {}) }) }
    : undefined;
  const shard: PingShard = {
    scenario,
    context,
    seqOf: scenario.match ? (createSeqReader(scenario.match, context.wire?.decodeReply) ?? orderReader()) : pongSeqSafe,
    ping,
    heartbeatMessage,
    // Templates without {{vars.*}} are built once here; with them, once per client when its session is done.
    sharedPing: ping?.usesVars ? undefined : ping?.bind(),
    sharedHeartbeat: heartbeatMessage?.usesVars ? undefined : heartbeatMessage?.bind(),
    session,
    goodReply: compileReplyCheck(scenario.reply, context.wire?.decodeReply),
    respond: compileResponders(scenario.respond, context.wire),
    messageBytes: scenario.messageBytes ?? DEFAULT_PING_BYTES,
    random: context.random ?? Math.random,
    timeoutMs: scenario.timeoutMs ?? (context.datagram ? DEFAULT_DATAGRAM_TIMEOUT_MS : DEFAULT_PONG_TIMEOUT_MS),
    timedOutMessage: `no reply within ${scenario.timeoutMs ?? DEFAULT_PONG_TIMEOUT_MS} ms (timeoutMs)`,
    // Fixed-interval pings of every client run off one wheel (the engine's, shared with KCP's flushes): one wakeup
    // sends every ping due in that millisecond.
    wheel: context.wheel ?? new TimerWheel(),
    grid: context.clients ? phaseGridMs(scenario.intervalMs, context.clients) : 1,
    // Every message a fixed-interval client's schedule calls for: its pings and its heartbeats (the rate the verdict holds the run to).
    scheduledPerSecond: scheduledSendsPerClient(scenario) ?? 0,
  };
  return clientSet((index) => openClient(context, index, new PingClient(shard, index)));
}

/**
 * One client: its numbers as fields, its behaviour on the prototype, and itself its own wheel timer and the
 * handlers openClient calls. A double in a field is updated in place; in a closure variable each new value was a
 * fresh heap number that lived a whole interval, so every young-generation collection copied and promoted ~20k of
 * them a second at 19.5k clients (with the in-flight record object per ping). Closures per client (a context and a
 * function object each for the send, the schedule, the timer and every handler) cost memory whether or not a plan
 * used think time, heartbeats, sessions or respond rules.
 */
class PingClient implements ClientHandlers, WheelTimer {
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
  // WheelTimer: the wheel's links (this client is its own timer for its fixed-interval pings).
  tick = -1;
  prev: WheelTimer | null = null;
  next: WheelTimer | null = null;
  list = -1;
  connection: TransportConnection | undefined = undefined;
  /** Think time's timer, and the heartbeat's; only plans with those set them. */
  timer: NodeJS.Timeout | undefined = undefined;
  heartbeat: NodeJS.Timeout | undefined = undefined;
  buildPing: MessageBuilder | undefined;
  buildHeartbeat: MessageBuilder | undefined;
  readonly session: { steps: CompiledSession } | undefined;
  readonly respond: Responders | undefined;
  /** The run's figures, and its cohort's when it is in one. */
  private readonly metrics: ScenarioMetrics;

  constructor(
    private readonly shard: PingShard,
    private readonly index: number,
  ) {
    this.metrics = clientMetrics(shard.context, index);
    this.buildPing = shard.sharedPing;
    this.buildHeartbeat = shard.sharedHeartbeat;
    this.session = shard.session;
    this.respond = shard.respond;
  }

  private send(intendedAt: number): void {
    const { shard } = this;
    const seq = this.nextSeq;
    const frame = this.buildPing
      ? this.buildPing({ seq, sentAtUs: nowMicros(), client: this.index })
      : pingFrame(seq, this.index, shard.messageBytes, shard.scenario.responseBytes);
    const sentAt = performance.now();
    if (!this.connection?.send(frame)) return;
    if (sentAt - intendedAt > LATE_SEND_MS) this.metrics.lateSend();
    this.inFlight = true;
    this.seq = seq;
    this.sentAt = sentAt;
    this.intendedAt = correctedFrom(intendedAt, sentAt);
    this.nextSeq = seq + 1;
    this.metrics.messageSent(frame.length);
  }

  private timedOut(now: number): boolean {
    if (!this.inFlight || now - this.sentAt < this.shard.timeoutMs) return false;
    if (this.shard.context.datagram) this.metrics.lost(1);
    else this.metrics.error("timeout", this.index, this.shard.timedOutMessage);
    this.inFlight = false;
    return true;
  }

  /** WheelTimer: a fixed-interval ping is due. */
  run(): void {
    const { scenario, wheel } = this.shard;
    const { metrics } = this;
    const now = performance.now();
    this.timedOut(now);
    if (this.inFlight) metrics.skippedSend();
    else this.send(this.nextDueAt);
    // Self-correcting: the schedule is open + k·interval, never "interval after the timer fired".
    this.nextDueAt += scenario.intervalMs;
    while (this.nextDueAt <= now) {
      this.nextDueAt += scenario.intervalMs;
      metrics.skippedSend();
    }
    wheel.set(this, this.nextDueAt);
  }

  private thinkThenSend(): void {
    const { minMs, maxMs } = this.shard.scenario.thinkTime!;
    const dueAt = performance.now() + minMs + this.shard.random() * (maxMs - minMs);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.send(dueAt);
      // A lost pong must not end the client's pinging.
      this.timer = setTimeout(() => this.timedOut(performance.now()) && this.thinkThenSend(), this.shard.timeoutMs);
    }, dueAt - performance.now());
  }

  onOpen(opened: TransportConnection, done?: SessionDone): void {
    const { shard, index } = this;
    const { scenario } = shard;
    this.connection = opened;
    if (shard.ping?.usesVars) this.buildPing = shard.ping.bind(done?.vars);
    if (shard.heartbeatMessage?.usesVars) this.buildHeartbeat = shard.heartbeatMessage.bind(done?.vars);
    if (scenario.heartbeat) {
      this.heartbeat = setInterval(() => {
        const frame = this.buildHeartbeat
          ? this.buildHeartbeat({ seq: 0, sentAtUs: nowMicros(), client: index })
          : `{"type":"heartbeat","client":${index}}`;
        if (opened.send(frame)) this.metrics.messageSent(frame.length);
      }, scenario.heartbeat.intervalMs);
    }
    if (scenario.thinkTime) {
      this.thinkThenSend();
      return;
    }
    // An open schedule: its sends are counted from the rate while the client is connected, not from the wheel.
    this.metrics.sendRate(shard.scheduledPerSecond);
    this.scheduled = true;
    // A random first offset keeps clients from sending in lockstep; on the grid, several share a wakeup.
    this.nextDueAt = Math.ceil((performance.now() + shard.random() * scenario.intervalMs) / shard.grid) * shard.grid;
    shard.wheel.set(this, this.nextDueAt);
  }

  onMessage(data: Buffer, receivedAt: number): void {
    const { shard, metrics } = this;
    const seq = shard.seqOf(data);
    if (seq === undefined && !(shard.seqOf === orderSentinel)) return;
    if (seq !== undefined && seq === this.lastAnswered) {
      metrics.duplicate();
      return;
    }
    // A pong for a ping already given up on (UDP reordering or a very late answer).
    if (seq !== undefined && seq < (this.inFlight ? this.seq : this.nextSeq)) {
      metrics.outOfOrder();
      return;
    }
    if (!this.inFlight || (seq !== undefined && seq !== this.seq)) return;
    this.lastAnswered = this.seq;
    this.inFlight = false;
    const { thinkTime } = shard.scenario;
    // A bad reply still answers the ping (the client goes on), but it is an error, not a round trip.
    if (shard.goodReply && !shard.goodReply(data)) metrics.error("bad-reply", this.index, BAD_REPLY, data);
    else {
      metrics.roundTripMicros((receivedAt - this.sentAt) * 1000);
      const interval = thinkTime ? undefined : shard.scenario.intervalMs * 1000;
      metrics.correctedRoundTripMicros((receivedAt - this.intendedAt) * 1000, interval);
    }
    if (thinkTime) this.thinkThenSend();
  }

  onStop(atRunEnd: boolean): void {
    // A ping past its timeout is a timeout (or lost) as it would have been at its next due time; one still
    // within it was cut short by the run's end, not by the server.
    if (!atRunEnd || this.timedOut(performance.now()) || !this.inFlight) return;
    this.inFlight = false;
    this.metrics.inFlightAtEnd(1);
  }

  onEnd(): void {
    clearTimeout(this.timer);
    this.shard.wheel.clear(this);
    clearInterval(this.heartbeat);
    if (this.scheduled) this.metrics.sendRate(-this.shard.scheduledPerSecond);
    this.scheduled = false;
  }
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
