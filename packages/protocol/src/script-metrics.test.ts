import { describe, expect, it } from "vitest";
import { latencyStats } from "./latency-stats.test-support";
import {
  scriptCountPerSecond,
  scriptMetricNames,
  scriptRunningTotals,
  scriptSloId,
  scriptSloMetric,
  scriptSummary,
  scriptValue,
} from "./script-metrics";
import type { SeriesPoint } from "./snapshot";

describe("a script run's own metrics", () => {
  it("reads a timing's p50 and p99 and a counter's count; an untimed histogram and an unreported counter are no data", () => {
    const figures = {
      script: { "reply-ms": latencyStats(0.5, 2.5), idle: latencyStats(null, null) },
      scriptCounts: { replies: 7 },
    };
    expect([
      scriptValue(figures, "reply-ms", "p50"),
      scriptValue(figures, "reply-ms", "p99"),
      scriptValue(figures, "replies", "count"),
    ]).toEqual([0.5, 2.5, 7]);
    expect([
      scriptValue(figures, "idle", "p99"),
      scriptValue(figures, "other", "p99"),
      scriptValue(figures, "other", "count"),
    ]).toEqual([null, null, null]);
    // Per second, a counter missing from a second counted nothing in it.
    expect(scriptCountPerSecond({}, "replies")).toBe(0);
  });

  it("names every metric any second carries, sorted, and sums a run up by name", () => {
    const points: Pick<SeriesPoint, "script" | "scriptCounts">[] = [
      { script: { "reply-ms": latencyStats(1, 2) }, scriptCounts: { replies: 3 } },
      { script: { "connect-ms": latencyStats(4, 9) } },
      {},
    ];
    expect(scriptMetricNames(points)).toEqual({ histograms: ["connect-ms", "reply-ms"], counters: ["replies"] });
    expect(scriptMetricNames([{}])).toEqual({ histograms: [], counters: [] });
    const summary = {
      script: { "reply-ms": latencyStats(1, 2), "connect-ms": latencyStats(4, 9) },
      scriptCounts: { replies: 1200, errors: 2 },
    };
    expect(scriptSummary(summary)).toEqual({
      timings: [
        { name: "connect-ms", p50Ms: 4, p99Ms: 9 },
        { name: "reply-ms", p50Ms: 1, p99Ms: 2 },
      ],
      counters: [
        { name: "errors", total: 2 },
        { name: "replies", total: 1200 },
      ],
    });
    expect(scriptSummary({})).toEqual({ timings: [], counters: [] });
  });

  it("keeps a counter's running total, as its count SLO judges it second by second", () => {
    expect(
      scriptRunningTotals(
        [{ scriptCounts: { replies: 3 } }, {}, { scriptCounts: { replies: 4, other: 9 } }],
        "replies",
      ),
    ).toEqual([3, 3, 7]);
  });

  it("writes the SLO id the judge reads back", () => {
    expect(scriptSloId("reply-ms", "p99")).toBe("script:reply-ms-p99");
    expect(scriptSloMetric(scriptSloId("replies", "count"))).toEqual({ name: "replies", stat: "count" });
  });
});
