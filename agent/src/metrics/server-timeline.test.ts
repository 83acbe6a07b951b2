import { describe, expect, it } from "vitest";
import type { MetricSnapshot, ServerWatchSnapshot } from "@throng/protocol/snapshot";
import type { ProcessWatcher } from "./process-watch";
import { createServerTimeline } from "./server-timeline";

function load(seq: number): MetricSnapshot {
  const counters = {
    connectionsOpen: 1,
    connectionsOpened: 0,
    connectionsFailed: 0,
    connectionsClosed: 0,
    messagesSent: 1,
    messagesReceived: 1,
    bytesSent: 8,
    bytesReceived: 8,
    errors: 0,
  };
  return {
    runId: "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e",
    seq,
    intervalStart: 1_000_000 + seq * 1000,
    intervalMs: 1000,
    clients: 1,
    counters,
    histograms: { rttUs: "" },
    health: { cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 },
  };
}

/** A watcher whose samples number from its own 0 and which fails (the process is gone) after `lives` samples. */
function fakeWatcher(lives: number, opened: { count: number }): (pid: number) => ProcessWatcher {
  return (pid) => {
    opened.count += 1;
    let taken = 0;
    return {
      sample(): ServerWatchSnapshot {
        if (taken >= lives) throw new Error(`ENOENT /proc/${pid}/stat`);
        return {
          seq: taken++,
          intervalStart: 1,
          intervalMs: 1000,
          pid,
          cpuPercent: 10 * taken,
          rssBytes: 1000 * taken,
          network: { packetsInPerSec: 1, packetsOutPerSec: 1, bytesInPerSec: 1, bytesOutPerSec: 1 },
        };
      },
    };
  };
}

describe("the server on the load's timeline", () => {
  it("joins one server sample to each load second, numbered by the load's seq, baseline taken at start", () => {
    const opened = { count: 0 };
    const timeline = createServerTimeline(42, fakeWatcher(10, opened));
    timeline.start();
    const seconds = [3, 4, 5].map((seq) => timeline.join(load(seq))); // a late start: seq need not begin at 0
    expect(opened.count).toBe(1);
    expect(seconds.map((s) => [s.seq, s.server?.seq, s.server?.cpuPercent])).toEqual([
      [3, 3, 10],
      [4, 4, 20],
      [5, 5, 30],
    ]);
    expect(timeline.samples()).toHaveLength(3);
    expect(timeline.endedAfterSeq()).toBeUndefined();
  });

  it("keeps the load going when the server exits, and names the last second it was seen", () => {
    const timeline = createServerTimeline(42, fakeWatcher(2, { count: 0 }));
    const seconds = [0, 1, 2, 3].map((seq) => timeline.join(load(seq)));
    expect(seconds.map((s) => s.server !== undefined)).toEqual([true, true, false, false]);
    expect(timeline.endedAfterSeq()).toBe(1);
  });

  it("says so when the server was gone before the load started", () => {
    const timeline = createServerTimeline(42, () => {
      throw new Error("ENOENT");
    });
    timeline.start();
    expect(timeline.join(load(0)).server).toBeUndefined();
    expect(timeline.endedAfterSeq()).toBe(-1);
  });
});
