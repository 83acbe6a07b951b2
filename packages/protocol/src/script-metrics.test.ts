import { describe, expect, it } from "vitest";
import { scriptSloMetric } from "./script-metrics";
import type { SeriesPoint } from "./snapshot";
import {
  scriptCountPerSecond,
  scriptMetricNames,
  scriptRunningTotals,
  scriptSloId,
  scriptSummary,
  scriptValue,
} from "./script-metrics";

const stats = (p50Ms: number | null, p99Ms: number | null) => ({
  count: p50Ms === null ? 0 : 10,
  p50Ms,
  p90Ms: p99Ms,
  p99Ms,
  maxMs: p99Ms,
});

describe("a script run's own metrics", () => {
  it("reads a timing's p50 and p99 and a counter's count; an untimed histogram and an unreported counter are no data", () => {
    const figures = { script: { "reply-ms": stats(0.5, 2.5), idle: stats(null, null) }, scriptCounts: { replies: 7 } };
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
      { script: { "reply-ms": stats(1, 2) }, scriptCounts: { replies: 3 } },
      { script: { "connect-ms": stats(4, 9) } },
      {},
    ];
    expect(scriptMetricNames(points)).toEqual({ histograms: ["connect-ms", "reply-ms"], counters: ["replies"] });
    expect(scriptMetricNames([{}])).toEqual({ histograms: [], counters: [] });
    const summary = {
      script: { "reply-ms": stats(1, 2), "connect-ms": stats(4, 9) },
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
