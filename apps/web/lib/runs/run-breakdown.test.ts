import { describe, expect, it } from "vitest";
import { latencyStats } from "@throng/protocol/latency-stats.test-support";
import { scriptCounterRows, scriptMetricRows } from "./run-breakdown";

/** Figures whose p50 is half their p99. */
const stats = (p99Ms: number | null, count?: number) => latencyStats(p99Ms && p99Ms / 2, p99Ms, count);

describe("script metric rows", () => {
  it("puts the slowest p99 first and counters by total", () => {
    expect(
      scriptMetricRows({ script: { fast: stats(2), slow: stats(90), none: stats(null, 0) } }).map((row) => row.name),
    ).toEqual(["slow", "fast", "none"]);
    expect(scriptCounterRows({ scriptCounts: { a: 1, b: 7 } })).toEqual([
      { name: "b", total: 7 },
      { name: "a", total: 1 },
    ]);
  });
});
