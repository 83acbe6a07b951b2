import { describe, expect, it } from "vitest";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { createSnapshotBuffer, DEFAULT_BUFFER_CAPACITY } from "./snapshot-buffer";
import { zeroCounters } from "./snapshot-builder";

const runId = "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e";

function snapshot(seq: number): MetricSnapshot {
  return {
    runId,
    seq,
    intervalStart: 1_000 * seq,
    intervalMs: 1_000,
    clients: 1,
    counters: zeroCounters(0),
    histograms: { rttUs: "" },
    health: { cpuPercent: 0, eventLoopP99Ms: 0, rssBytes: 0 },
  };
}

describe("snapshot buffer (PROTOCOL.md §5)", () => {
  it("holds at least ten minutes of snapshots by default", () => {
    expect(DEFAULT_BUFFER_CAPACITY).toBeGreaterThanOrEqual(600);
  });

  it("keeps unacknowledged snapshots in seq order and drops them on ack", () => {
    const buffer = createSnapshotBuffer(10);
    for (let seq = 0; seq < 4; seq += 1) buffer.add(snapshot(seq));
    expect(buffer.ack(runId, 1)).toBe(true);
    expect(buffer.ack(runId, 1)).toBe(false);
    expect(buffer.unacked().map((s) => s.seq)).toEqual([0, 2, 3]);
  });

  it("drops the oldest snapshot when full, so memory stays bounded while disconnected", () => {
    const buffer = createSnapshotBuffer(3);
    const dropped = [0, 1, 2, 3, 4].map((seq) => buffer.add(snapshot(seq))?.seq);
    expect(dropped).toEqual([undefined, undefined, undefined, 0, 1]);
    expect(buffer.unacked().map((s) => s.seq)).toEqual([2, 3, 4]);
  });
});
