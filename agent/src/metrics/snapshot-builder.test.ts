import { decodeFromCompressedBase64 } from "hdr-histogram-js";
import { describe, expect, it } from "vitest";
import { MetricSnapshot, type SnapshotCounters, zeroCounters } from "@throng/protocol/snapshot";
import type { HealthSampler } from "./health";
import { decodeHistogram } from "./histogram";
import { createSnapshotBuilder } from "./snapshot-builder";

const runId = "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e";
const fixedHealth: HealthSampler = {
  sample: () => ({ cpuPercent: 12.5, eventLoopP99Ms: 1.25, rssBytes: 1_000 }),
  stop() {},
};

/** An interval's counters: those named, every other count zero and no errors by kind. */
function counters(named: Partial<SnapshotCounters>): SnapshotCounters {
  return { ...zeroCounters(), errorsByKind: {}, ...named };
}

describe("snapshot builder (PROTOCOL.md §5)", () => {
  it("encodes round trips into an HDR histogram that decodes to the same distribution", () => {
    const builder = createSnapshotBuilder({ runId, health: fixedHealth });
    for (let micros = 1_000; micros <= 100_000; micros += 1_000) builder.metrics.roundTripMicros(micros);

    const snapshot = builder.take({ seq: 0, intervalStart: 1_700_000_000_000, intervalMs: 1_000, clients: 3 });
    const histogram = decodeHistogram(snapshot.histograms.rttUs);

    expect(histogram.totalCount).toBe(100);
    expect(histogram.minNonZeroValue).toBeGreaterThanOrEqual(999);
    expect(histogram.getValueAtPercentile(50)).toBeGreaterThanOrEqual(50_000);
    expect(histogram.getValueAtPercentile(50)).toBeLessThan(50_100); // 3 significant digits
    expect(histogram.maxValue).toBeGreaterThanOrEqual(100_000);
    expect(MetricSnapshot.safeParse(snapshot).success).toBe(true);
    // The server merges into 64-bit buckets; the encoding must decode there too.
    expect(decodeFromCompressedBase64(snapshot.histograms.rttUs, 64).totalCount).toBe(100);
  });

  it("resets counters and the histogram every interval but carries the open-connections gauge", () => {
    const builder = createSnapshotBuilder({ runId, health: fixedHealth });
    const { metrics } = builder;
    metrics.connectionOpened();
    metrics.connectionOpened();
    metrics.connectionFailed();
    metrics.messageSent(64);
    metrics.messageReceived(20);
    metrics.error();
    metrics.roundTripMicros(500);

    const first = builder.take({ seq: 0, intervalStart: 1_000, intervalMs: 1_000, clients: 3 });
    expect(first.counters).toEqual(
      counters({
        connectionsOpen: 2,
        connectionsOpened: 2,
        connectionsFailed: 1,
        messagesSent: 1,
        messagesReceived: 1,
        bytesSent: 64,
        bytesReceived: 20,
        errors: 1,
        errorsByKind: { error: 1, other: 1 },
      }),
    );

    metrics.connectionClosed();
    const second = builder.take({ seq: 1, intervalStart: 2_000, intervalMs: 1_000, clients: 3 });
    expect(second.counters).toEqual(
      counters({ connectionsOpen: 1, connectionsClosed: 1, closesByCause: { agent: 1 } }),
    );
    expect(decodeHistogram(second.histograms.rttUs).totalCount).toBe(0);
    expect(second.health).toEqual(fixedHealth.sample());
  });

  it("clamps a round trip beyond the tracked range instead of throwing", () => {
    const builder = createSnapshotBuilder({ runId, health: fixedHealth });
    builder.metrics.roundTripMicros(10 * 60_000_000);
    builder.metrics.roundTripMicros(0);
    const histogram = decodeHistogram(
      builder.take({ seq: 0, intervalStart: 0, intervalMs: 1_000, clients: 1 }).histograms.rttUs,
    );
    expect(histogram.totalCount).toBe(2);
  });

  it("back-fills the corrected histogram for sends a stall skipped (expected interval), and leaves the raw one alone", () => {
    const builder = createSnapshotBuilder({ runId, health: fixedHealth });
    builder.metrics.roundTripMicros(500_000);
    builder.metrics.correctedRoundTripMicros(500_000, 100_000);
    const snapshot = builder.take({ seq: 0, intervalStart: 0, intervalMs: 1_000, clients: 1 });
    expect(decodeHistogram(snapshot.histograms.rttUs).totalCount).toBe(1);
    // 500 ms at a 100 ms interval: the one sample plus 400, 300, 200 and 100 ms for the skipped sends.
    expect(decodeHistogram(snapshot.histograms.rttCorrectedUs!).totalCount).toBe(5);
  });

  it("adds an optional counter or histogram from its first use and keeps it (at zero) in every later second", () => {
    const builder = createSnapshotBuilder({ runId, health: fixedHealth });
    const first = builder.take({ seq: 0, intervalStart: 0, intervalMs: 1_000, clients: 1 });
    expect(first.counters.lost).toBeUndefined();
    expect(first.histograms.broadcastUs).toBeUndefined();
    builder.metrics.lost(2);
    builder.metrics.broadcastMicros(1_000);
    builder.metrics.broadcastsExpected(3);
    const second = builder.take({ seq: 1, intervalStart: 1_000, intervalMs: 1_000, clients: 1, step: 4 });
    expect(second.counters).toMatchObject({ lost: 2, broadcastsExpected: 3, broadcastsReceived: 1 });
    expect(second.step).toBe(4);
    const third = builder.take({ seq: 2, intervalStart: 2_000, intervalMs: 1_000, clients: 1 });
    expect(third.counters).toMatchObject({ lost: 0, broadcastsExpected: 0, broadcastsReceived: 0 });
    expect(decodeHistogram(third.histograms.broadcastUs!).totalCount).toBe(0);
    expect(MetricSnapshot.safeParse(third).success).toBe(true);
  });

  it("counts the sends the clients' schedules call for from their rates over time, carrying fractions to the next second", () => {
    let now = 0;
    const builder = createSnapshotBuilder({ runId, health: fixedHealth, now: () => now });
    const take = (seq: number) =>
      builder.take({ seq, intervalStart: seq * 1_000, intervalMs: 1_000, clients: 3 }).counters.scheduledSends;
    expect(take(0)).toBeUndefined();
    now = 1_000;
    builder.metrics.sendRate(10);
    now = 1_250;
    builder.metrics.sendRate(3.3);
    now = 2_000;
    // 10/s for 1 s and 3.3/s for 0.75 s: 12.475.
    expect(take(1)).toBe(12);
    now = 2_500;
    builder.metrics.sendRate(-10);
    now = 3_000;
    // 0.475 carried, 5 + 3.3: 8.775.
    expect(take(2)).toBe(8);
    builder.metrics.sendRate(-3.3);
    now = 4_000;
    // Nothing scheduled now; the counter stays in every later second, at zero once its fraction is spent.
    expect(take(3)).toBe(0);
    expect(
      MetricSnapshot.safeParse(builder.take({ seq: 4, intervalStart: 4_000, intervalMs: 1_000, clients: 0 })).success,
    ).toBe(true);
  });

  it("adds messages in flight at the run's end as their own counter", () => {
    const builder = createSnapshotBuilder({ runId, health: fixedHealth });
    builder.metrics.inFlightAtEnd(3);
    builder.metrics.inFlightAtEnd(2);
    const snapshot = builder.take({ seq: 0, intervalStart: 0, intervalMs: 400, clients: 1 });
    expect(snapshot.counters).toMatchObject({ inFlightAtEnd: 5, errors: 0 });
    expect(snapshot.counters.errorsByKind).toBeUndefined();
  });
});
