import type {
  MetricSnapshot,
  SessionStepFailure,
  SessionStepFailures,
  SnapshotCounters,
  SnapshotHistograms,
} from "@throng/protocol/snapshot";
import type { Histogram } from "hdr-histogram-js";
import type { ErrorSampler } from "./error-samples";
import { createHealthSampler, type HealthSampler } from "./health";
import { createLatencyHistogram, decodeHistogram, encodeHistogram, MAX_TRACKED_US, recordMicros } from "./histogram";

/** Why a connection closed: we closed it, the peer closed it cleanly, or it broke. */
export type CloseCause = "agent" | "server" | "reset" | "error";

/** What a scenario reports while it runs; metrics flow one way, from scenario to snapshot. */
export interface ScenarioMetrics {
  /** `connectMicros`: from starting to connect until open. */
  connectionOpened(connectMicros?: number): void;
  /** `client`, `message`: which client and why, for the error's sample (error-samples.ts); neither is built for the counter alone. */
  connectionFailed(cause?: string, client?: number, message?: string): void;
  connectionClosed(cause?: CloseCause): void;
  messageSent(bytes: number): void;
  messageReceived(bytes: number): void;
  /**
   * An error, counted under `kind`. `client`, `message` and `bytes` (the message that caused it) go into the kind's
   * sample when it is one of its first distinct ones (error-samples.ts): pass what is at hand, never build a string
   * for it.
   */
  error(kind?: string, client?: number, message?: string, bytes?: Uint8Array): void;
  roundTripMicros(micros: number): void;
  /** From the intended send time; `expectedIntervalMicros` back-fills the sends a stall skipped (HdrHistogram's CO correction). */
  correctedRoundTripMicros(micros: number, expectedIntervalMicros?: number): void;
  lateSend(): void;
  skippedSend(): void;
  /**
   * A client's send schedule starts (+ its sends per second) or stops (− the same). The builder counts the sends it
   * called for (`scheduledSends`) from these rates and the time, not from the timers that make the sends.
   */
  sendRate(perSecondChange: number): void;
  /** Messages still unanswered (and not timed out) when the engine stopped their client at the run's end. */
  inFlightAtEnd(count: number): void;
  loginMicros(micros: number): void;
  /** A failed login, counted as error "login-<cause>" (its sample's `client`, `message` and `bytes` as error's). */
  loginFailed(cause: string, client?: number, message?: string, bytes?: Uint8Array): void;
  broadcastMicros(micros: number): void;
  jitterMicros(micros: number): void;
  broadcastsExpected(count: number): void;
  lost(count: number): void;
  /** A dropped client starts a reconnect attempt; `cause` is what ended its last connection ("server", "storm", …). */
  reconnecting(cause: string): void;
  duplicate(): void;
  outOfOrder(): void;
  /** Session step `step` (its index in the plan's session) ended well after `micros`. */
  sessionStepMicros(step: number, micros: number): void;
  /** Session step `step` failed (its cause is also counted in errorsByKind, where the failure is counted). */
  sessionStepFailed(step: number, cause: SessionStepFailure): void;
}

/** Where one snapshot sits in the run. */
export interface SnapshotInterval {
  seq: number;
  /** Epoch ms in server time. */
  intervalStart: number;
  intervalMs: number;
  /** Clients started so far (a gauge). */
  clients: number;
  /** step-up load: the step this second belongs to. */
  step?: number;
}

export interface SnapshotBuilder {
  readonly metrics: ScenarioMetrics;
  /** Builds the snapshot for the interval just ended and starts the next one from zero. */
  take(interval: SnapshotInterval): MetricSnapshot;
  /** Adds counters and histograms measured elsewhere (a script's worker thread) into the interval in progress. */
  fold(part: Pick<MetricSnapshot, "counters" | "histograms">): void;
  stop(): void;
}

type OptionalCounter =
  | "lateSends"
  | "skippedSends"
  | "inFlightAtEnd"
  | "lost"
  | "duplicates"
  | "outOfOrder"
  | "broadcastsExpected"
  | "broadcastsReceived"
  | "loginsSucceeded"
  | "loginsFailed";
type OptionalHistogram = Exclude<keyof SnapshotHistograms, "rttUs" | "script" | "sessionSteps">;

/** A second's counters before anything happened in it, with `connectionsOpen` connections held open from before. */
export function zeroCounters(connectionsOpen: number): SnapshotCounters {
  return {
    connectionsOpen,
    connectionsOpened: 0,
    connectionsFailed: 0,
    connectionsClosed: 0,
    messagesSent: 0,
    messagesReceived: 0,
    bytesSent: 0,
    bytesReceived: 0,
    errors: 0,
  };
}

/**
 * A session's steps, by index: each one's time (from its first use, in every later snapshot) and failures by cause.
 * Recording allocates only a step's first histogram and a failure's record, never per step run.
 */
function createStepTally() {
  const times: Histogram[] = [];
  let failures: SessionStepFailures = {};
  let failed = false;
  return {
    time(step: number, micros: number): void {
      let histogram = times[step];
      if (!histogram) {
        histogram = createLatencyHistogram();
        times[step] = histogram;
      }
      recordMicros(histogram, micros);
    },
    failed(step: number, cause: SessionStepFailure): void {
      const causes = failures[step] ?? {};
      failures[step] = causes;
      causes[cause] = (causes[cause] ?? 0) + 1;
      failed = true;
    },
    /** Writes the interval's figures into the snapshot's and starts the next interval from zero. */
    take(histograms: SnapshotHistograms, counters: SnapshotCounters): void {
      if (times.length) {
        const encoded: Record<string, string> = {};
        times.forEach((histogram, step) => {
          if (histogram) encoded[step] = encodeHistogram(histogram);
          histogram?.reset();
        });
        histograms.sessionSteps = encoded;
      }
      if (failed) counters.sessionStepFailures = failures;
      failures = {};
      failed = false;
    },
  };
}

function increment(record: Record<string, number>, key: string, by = 1): void {
  record[key] = (record[key] ?? 0) + by;
}

/**
 * The sends the clients' schedules call for: the sum of their rates integrated over time, so a send loop that stalls
 * falls short of it. Whole sends go into each interval; the fraction carries over, so no send is lost to rounding.
 */
function createSendSchedule(now: () => number) {
  let perMs = 0;
  let since = 0;
  let owed = 0;
  const accrue = (at: number) => {
    owed += Math.max(0, perMs) * (at - since);
    since = at;
  };
  return {
    used: false,
    change(perSecond: number) {
      accrue(now());
      perMs += perSecond / 1000;
      // Rates added and taken away in floating point: at (near) zero, be exactly zero.
      if (perMs < 1e-9) perMs = 0;
      this.used = true;
    },
    /** The whole sends called for since the last take. */
    take(): number {
      accrue(now());
      const whole = Math.floor(owed + 1e-9);
      owed = Math.max(0, owed - whole);
      return whole;
    },
  };
}

/**
 * Accumulates one shard's counters and histograms, one interval at a time. An optional counter or histogram
 * appears from the first second it is used and then in every later snapshot (zero when idle), so series stay whole.
 */
export function createSnapshotBuilder(options: {
  runId: string;
  health?: HealthSampler;
  now?: () => number;
  /** A transport's own per-second counters (KCP's), written into each snapshot's counters as it is cut. */
  transportCounters?: (counters: SnapshotCounters) => void;
  /** Keeps the errors' first distinct samples, sent in the snapshots; a cohort's builder has none (the run's keeps them). */
  errorSamples?: ErrorSampler;
}): SnapshotBuilder {
  const samples = options.errorSamples;
  const health = options.health ?? createHealthSampler();
  const schedule = createSendSchedule(options.now ?? (() => performance.now()));
  const rtt = createLatencyHistogram();
  const optionalHistograms = new Map<OptionalHistogram, Histogram>();
  const optionalCounters = new Map<OptionalCounter, number>();
  let counters = zeroCounters(0);
  let errorsByKind: Record<string, number> = {};
  let closesByCause: Record<string, number> = {};
  let reconnectsByCause: Record<string, number> = {};
  const usedRecords = { errorsByKind: false, closesByCause: false, reconnectsByCause: false };

  const histogram = (name: OptionalHistogram) => {
    let found = optionalHistograms.get(name);
    if (!found) {
      found = createLatencyHistogram();
      optionalHistograms.set(name, found);
    }
    return found;
  };
  const count = (name: OptionalCounter, by = 1) => optionalCounters.set(name, (optionalCounters.get(name) ?? 0) + by);
  // A script's named histograms and counters (fold): like optional ones, in every snapshot from their first.
  const scriptHistograms = new Map<string, Histogram>();
  const scriptCounts = new Map<string, number>();
  // Each session step's time and failures, by step index.
  const steps = createStepTally();
  // A script worker's open-connections gauge, as of its last folded part (its sockets are not the engine's own).
  let foldedConnectionsOpen = 0;

  const metrics: ScenarioMetrics = {
    connectionOpened(connectMicros) {
      counters.connectionsOpened += 1;
      counters.connectionsOpen += 1;
      if (connectMicros !== undefined) recordMicros(histogram("connectUs"), connectMicros);
    },
    connectionFailed(cause = "error", client, message) {
      counters.connectionsFailed += 1;
      usedRecords.errorsByKind = true;
      increment(errorsByKind, cause);
      samples?.offer(cause, client, message, undefined);
    },
    connectionClosed(cause = "agent") {
      counters.connectionsClosed += 1;
      counters.connectionsOpen = Math.max(0, counters.connectionsOpen - 1);
      usedRecords.closesByCause = true;
      increment(closesByCause, cause);
    },
    messageSent(bytes) {
      counters.messagesSent += 1;
      counters.bytesSent += bytes;
    },
    messageReceived(bytes) {
      counters.messagesReceived += 1;
      counters.bytesReceived += bytes;
    },
    error(kind = "other", client, message, bytes) {
      counters.errors += 1;
      usedRecords.errorsByKind = true;
      increment(errorsByKind, kind);
      samples?.offer(kind, client, message, bytes);
    },
    roundTripMicros(micros) {
      recordMicros(rtt, micros);
    },
    correctedRoundTripMicros(micros, expectedIntervalMicros) {
      const target = histogram("rttCorrectedUs");
      const value = Math.min(MAX_TRACKED_US, Math.max(1, Math.round(micros)));
      if (expectedIntervalMicros && expectedIntervalMicros > 0)
        target.recordValueWithExpectedInterval(value, Math.round(expectedIntervalMicros));
      else target.recordValue(value);
    },
    lateSend: () => count("lateSends"),
    skippedSend: () => count("skippedSends"),
    sendRate: (perSecondChange) => schedule.change(perSecondChange),
    inFlightAtEnd: (n) => count("inFlightAtEnd", n),
    loginMicros(micros) {
      recordMicros(histogram("loginUs"), micros);
      count("loginsSucceeded");
    },
    loginFailed(cause, client, message, bytes) {
      count("loginsFailed");
      metrics.error(`login-${cause}`, client, message, bytes);
    },
    broadcastMicros(micros) {
      recordMicros(histogram("broadcastUs"), micros);
      count("broadcastsReceived");
    },
    jitterMicros: (micros) => recordMicros(histogram("jitterUs"), micros),
    broadcastsExpected: (n) => count("broadcastsExpected", n),
    lost: (n) => count("lost", n),
    reconnecting(cause) {
      usedRecords.reconnectsByCause = true;
      increment(reconnectsByCause, cause);
    },
    duplicate: () => count("duplicates"),
    outOfOrder: () => count("outOfOrder"),
    sessionStepMicros: (step, micros) => steps.time(step, micros),
    sessionStepFailed: (step, cause) => steps.failed(step, cause),
  };

  return {
    metrics,
    take(interval) {
      const histograms: SnapshotHistograms = { rttUs: encodeHistogram(rtt) };
      for (const [name, value] of optionalHistograms) histograms[name] = encodeHistogram(value);
      const snapshotCounters: SnapshotCounters = {
        ...counters,
        connectionsOpen: counters.connectionsOpen + foldedConnectionsOpen,
      };
      for (const [name, value] of optionalCounters) snapshotCounters[name] = value;
      if (schedule.used) snapshotCounters.scheduledSends = schedule.take();
      if (usedRecords.errorsByKind) snapshotCounters.errorsByKind = errorsByKind;
      if (usedRecords.closesByCause) snapshotCounters.closesByCause = closesByCause;
      if (scriptHistograms.size)
        histograms.script = Object.fromEntries(
          [...scriptHistograms].map(([name, value]) => [name, encodeHistogram(value)]),
        );
      steps.take(histograms, snapshotCounters);
      if (scriptCounts.size) snapshotCounters.scriptCounts = Object.fromEntries(scriptCounts);
      if (usedRecords.reconnectsByCause) snapshotCounters.reconnectsByCause = reconnectsByCause;
      options.transportCounters?.(snapshotCounters);
      const snapshot: MetricSnapshot = {
        runId: options.runId,
        seq: interval.seq,
        intervalStart: Math.round(interval.intervalStart),
        intervalMs: Math.min(60_000, Math.max(1, Math.round(interval.intervalMs))),
        clients: interval.clients,
        counters: snapshotCounters,
        histograms,
        health: health.sample(interval.intervalMs),
        ...(interval.step !== undefined ? { step: interval.step } : {}),
      };
      const errorSamples = samples?.take();
      if (errorSamples) snapshot.errorSamples = errorSamples;
      // Counters are per interval; the open-connections gauge carries over.
      counters = zeroCounters(counters.connectionsOpen);
      errorsByKind = {};
      closesByCause = {};
      reconnectsByCause = {};
      for (const name of optionalCounters.keys()) optionalCounters.set(name, 0);
      rtt.reset();
      for (const value of optionalHistograms.values()) value.reset();
      for (const value of scriptHistograms.values()) value.reset();
      for (const name of scriptCounts.keys()) scriptCounts.set(name, 0);
      return snapshot;
    },
    fold({ counters: c, histograms: h }) {
      foldedConnectionsOpen = c.connectionsOpen;
      for (const [key, value] of Object.entries(c)) {
        if (typeof value !== "number" || key === "connectionsOpen" || key === "scheduledSends") continue;
        if (key in counters) counters[key as "errors"] += value;
        else count(key as OptionalCounter, value);
      }
      for (const [kind, n] of Object.entries(c.errorsByKind ?? {})) {
        usedRecords.errorsByKind = true;
        increment(errorsByKind, kind, n);
      }
      for (const [cause, n] of Object.entries(c.closesByCause ?? {})) {
        usedRecords.closesByCause = true;
        increment(closesByCause, cause, n);
      }
      for (const [name, n] of Object.entries(c.scriptCounts ?? {}))
        scriptCounts.set(name, (scriptCounts.get(name) ?? 0) + n);
      const add = (into: Histogram, encoded: string) => into.add(decodeHistogram(encoded));
      for (const [name, encoded] of Object.entries(h)) {
        if (name === "script" || typeof encoded !== "string") continue;
        if (name === "rttUs") add(rtt, encoded);
        else add(histogram(name as OptionalHistogram), encoded);
      }
      for (const [name, encoded] of Object.entries(h.script ?? {})) {
        if (!scriptHistograms.has(name)) scriptHistograms.set(name, createLatencyHistogram());
        add(scriptHistograms.get(name)!, encoded);
      }
    },
    stop() {
      health.stop();
    },
  };
}
