import type { MetricSnapshot, SnapshotCounters } from "@throng/protocol/snapshot";
import { createHealthSampler, type HealthSampler } from "./health";
import { createLatencyHistogram, encodeHistogram, recordMicros } from "./histogram";

/** What a scenario reports while it runs; metrics flow one way, from scenario to snapshot. */
export interface ScenarioMetrics {
  connectionOpened(): void;
  connectionFailed(): void;
  connectionClosed(): void;
  messageSent(bytes: number): void;
  messageReceived(bytes: number): void;
  error(): void;
  roundTripMicros(micros: number): void;
}

/** Where one snapshot sits in the run. */
export interface SnapshotInterval {
  seq: number;
  /** Epoch ms in server time. */
  intervalStart: number;
  intervalMs: number;
  /** Clients started so far (a gauge). */
  clients: number;
}

export interface SnapshotBuilder {
  readonly metrics: ScenarioMetrics;
  /** Builds the snapshot for the interval just ended and starts the next one from zero. */
  take(interval: SnapshotInterval): MetricSnapshot;
  stop(): void;
}

function zeroCounters(connectionsOpen: number): SnapshotCounters {
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

/** Accumulates one shard's counters and round trips, one interval at a time. */
export function createSnapshotBuilder(options: { runId: string; health?: HealthSampler }): SnapshotBuilder {
  const health = options.health ?? createHealthSampler();
  const rtt = createLatencyHistogram();
  let counters = zeroCounters(0);

  const metrics: ScenarioMetrics = {
    connectionOpened() {
      counters.connectionsOpened += 1;
      counters.connectionsOpen += 1;
    },
    connectionFailed() {
      counters.connectionsFailed += 1;
    },
    connectionClosed() {
      counters.connectionsClosed += 1;
      counters.connectionsOpen = Math.max(0, counters.connectionsOpen - 1);
    },
    messageSent(bytes) {
      counters.messagesSent += 1;
      counters.bytesSent += bytes;
    },
    messageReceived(bytes) {
      counters.messagesReceived += 1;
      counters.bytesReceived += bytes;
    },
    error() {
      counters.errors += 1;
    },
    roundTripMicros(micros) {
      recordMicros(rtt, micros);
    },
  };

  return {
    metrics,
    take(interval) {
      const snapshot: MetricSnapshot = {
        runId: options.runId,
        seq: interval.seq,
        intervalStart: Math.round(interval.intervalStart),
        intervalMs: Math.min(60_000, Math.max(1, Math.round(interval.intervalMs))),
        clients: interval.clients,
        counters,
        histograms: { rttUs: encodeHistogram(rtt) },
        health: health.sample(),
      };
      // Counters are per interval; the open-connections gauge carries over.
      counters = zeroCounters(counters.connectionsOpen);
      rtt.reset();
      return snapshot;
    },
    stop() {
      health.stop();
    },
  };
}
