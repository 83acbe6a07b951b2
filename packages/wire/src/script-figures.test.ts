import { describe, expect, it } from "vitest";
import type { StoredSnapshot } from "@throng/protocol/snapshot";
import { buildSeries, mergeSecond, summariseRun } from "./run-summary";
import { namedSecond } from "./stored-second.test-support";

/** A script agent's second: its named histograms (µs) and counters, stored as ingest stores them. */
const row = (
  agentId: string,
  second: number,
  script: Record<string, number[]>,
  scriptCounts?: Record<string, number>,
): StoredSnapshot => namedSecond(agentId, second, "script", script, scriptCounts ? { scriptCounts } : {});

describe("merging a script's named metrics", () => {
  it("merges two agents' script histograms per second (percentiles of the merged histogram) and sums their counters", () => {
    // Agent a: 99 joins at 1 ms; agent b: one at 50 ms. Averaging the agents' p99s would give ~25 ms.
    const a = row("a", 10, { "join-ms": Array(99).fill(1_000) }, { joined: 99 });
    const b = row("b", 10, { "join-ms": [50_000] }, { joined: 1, desyncs: 2 });
    const point = mergeSecond(10, [a, b]);
    expect(point.script?.["join-ms"]?.count).toBe(100);
    expect(point.script?.["join-ms"]?.p50Ms).toBeCloseTo(1, 1);
    expect(point.script?.["join-ms"]?.p99Ms).toBeCloseTo(1, 1);
    expect(point.script?.["join-ms"]?.maxMs).toBeCloseTo(50, 0);
    expect(point.scriptCounts).toEqual({ joined: 100, desyncs: 2 });
  });

  it("keeps each second apart and merges the whole run into the summary", () => {
    const rows = [
      row("a", 1, { "join-ms": [2_000] }, { joined: 1 }),
      row("a", 2, { "join-ms": [4_000, 4_000] }, { joined: 2 }),
      row("b", 2, { "move-ms": [] }),
    ];
    const [first, second] = buildSeries(rows);
    expect(first!.script?.["join-ms"]?.p50Ms).toBeCloseTo(2, 1);
    expect(second!.script?.["join-ms"]?.p50Ms).toBeCloseTo(4, 1);
    expect(second!.script?.["move-ms"]).toEqual({ count: 0, p50Ms: null, p90Ms: null, p99Ms: null, maxMs: null });
    const summary = summariseRun(rows);
    expect(summary.script?.["join-ms"]?.count).toBe(3);
    expect(summary.script?.["join-ms"]?.maxMs).toBeCloseTo(4, 1);
    expect(summary.scriptCounts).toEqual({ joined: 3 });
  });

  it("leaves the script figures out of a run that ran no script", () => {
    const plain = { ...row("a", 1, {}), histograms: {} };
    expect(mergeSecond(1, [plain])).not.toHaveProperty("script");
    expect(mergeSecond(1, [plain])).not.toHaveProperty("scriptCounts");
    expect(summariseRun([plain])).not.toHaveProperty("script");
  });
});
