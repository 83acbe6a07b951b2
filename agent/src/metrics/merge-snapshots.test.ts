import { describe, expect, it } from "vitest";
import type { AgentHealth, MetricSnapshot } from "@throng/protocol/snapshot";
import { MetricSnapshot as MetricSnapshotSchema } from "@throng/protocol/snapshot";
import { createLatencyHistogram, decodeHistogram, encodeHistogram } from "./histogram";
import { mergeSnapshots } from "./merge-snapshots";

function engineSnapshot(health: AgentHealth, counters: Partial<MetricSnapshot["counters"]> = {}): MetricSnapshot {
  return {
    runId: "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e",
    seq: 4,
    intervalStart: 1_700_000_004_000,
    intervalMs: 1_000,
    clients: 10,
    counters: {
      connectionsOpen: 10,
      connectionsOpened: 0,
      connectionsFailed: 0,
      connectionsClosed: 0,
      messagesSent: 100,
      messagesReceived: 100,
      bytesSent: 6_400,
      bytesReceived: 2_000,
      errors: 0,
      ...counters,
    },
    histograms: { rttUs: encodeHistogram(createLatencyHistogram()) },
    health,
  };
}

describe("merging one second of several engines", () => {
  it("merges each network cohort's part as the snapshot's own: clients and counters summed, histograms merged, the least faithful path kept", () => {
    const cohort = (values: number[], applied: "kernel" | "above-stream") => {
      const histogram = createLatencyHistogram();
      for (const value of values) histogram.recordValue(value);
      const { counters } = engineSnapshot(
        { cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 },
        { messagesSent: values.length, networkDropped: 1 },
      );
      return { clients: 3, counters, histograms: { rttUs: encodeHistogram(histogram) }, applied };
    };
    const health = { cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 };
    const merged = mergeSnapshots([
      { ...engineSnapshot(health), cohorts: { mobile: cohort([40_000, 41_000], "kernel") } },
      { ...engineSnapshot(health), cohorts: { mobile: cohort([42_000], "above-stream") } },
      engineSnapshot(health),
    ]);
    expect(merged.cohorts!.mobile).toMatchObject({
      clients: 6,
      applied: "above-stream",
      counters: { messagesSent: 3, networkDropped: 2 },
    });
    expect(decodeHistogram(merged.cohorts!.mobile!.histograms.rttUs).totalCount).toBe(3);
    expect(MetricSnapshotSchema.safeParse(merged).success).toBe(true);
  });

  it("sums scheduled sends and messages in flight at the end, like the other counters", () => {
    const merged = mergeSnapshots([
      engineSnapshot({ cpuPercent: 50, eventLoopP99Ms: 1, rssBytes: 1 }, { scheduledSends: 100, inFlightAtEnd: 2 }),
      engineSnapshot({ cpuPercent: 50, eventLoopP99Ms: 1, rssBytes: 1 }, { scheduledSends: 101 }),
    ]);
    expect(merged.counters).toMatchObject({ messagesSent: 200, scheduledSends: 201, inFlightAtEnd: 2 });
  });

  it("keeps the host's steal and says how many engines were saturated", () => {
    const reason = "CPU ≥ 90% of a core for 3 s (97%)";
    const merged = mergeSnapshots([
      engineSnapshot({
        cpuPercent: 97,
        eventLoopP99Ms: 1,
        rssBytes: 1,
        stealPercent: 4.5,
        saturated: true,
        saturatedReason: reason,
      }),
      engineSnapshot({ cpuPercent: 40, eventLoopP99Ms: 1, rssBytes: 1, stealPercent: 4.25, saturated: false }),
    ]);
    expect(merged.health).toMatchObject({
      cpuPercent: 137,
      engines: 2,
      stealPercent: 4.5,
      saturated: true,
      saturatedReason: `1 of 2 engines: ${reason}`,
    });
    expect(MetricSnapshotSchema.safeParse(merged).success).toBe(true);
    const quiet = mergeSnapshots([
      engineSnapshot({ cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 }),
      engineSnapshot({ cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 }),
    ]);
    expect(quiet.health.stealPercent).toBeUndefined();
    expect(quiet.health.saturated).toBe(false);
  });

  it("keeps the longest hold of any engine's event loop, and none when no engine reports one", () => {
    const merged = mergeSnapshots([
      engineSnapshot({ cpuPercent: 1, eventLoopP99Ms: 0.3, eventLoopMaxMs: 12_004, rssBytes: 1 }),
      engineSnapshot({ cpuPercent: 1, eventLoopP99Ms: 0.4, eventLoopMaxMs: 2, rssBytes: 1 }),
      engineSnapshot({ cpuPercent: 1, eventLoopP99Ms: 0.2, rssBytes: 1 }),
    ]);
    expect(merged.health).toMatchObject({ eventLoopP99Ms: 0.4, eventLoopMaxMs: 12_004 });
    const older = mergeSnapshots([engineSnapshot({ cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 })]);
    expect(older.health.eventLoopMaxMs).toBeUndefined();
  });
});
