import { describe, expect, it } from "vitest";
import { latencyStats } from "@throng/protocol/latency-stats.test-support";
import type { RunView } from "@throng/protocol/run";
import { scriptCountLines, scriptLatencyLines, scriptMetricNames, scriptSummaryCells } from "./series-script";
import { idleSeriesPoint } from "../shared/series-point.test-support";

describe("a script's metrics on the run page", () => {
  it("charts every name the script used, by its own name: p50 and p99 of what it timed, and its counts per second", () => {
    const points = [
      idleSeriesPoint({ script: { "connect-ms": latencyStats(1.5, 4) }, scriptCounts: { replies: 3 } }),
      idleSeriesPoint({ script: { "reply-ms": latencyStats(0.2, 0.9) } }),
    ];
    const names = scriptMetricNames(points);
    expect(names).toEqual({ histograms: ["connect-ms", "reply-ms"], counters: ["replies"] });
    const latency = scriptLatencyLines(names.histograms);
    expect(latency.map((line) => line.label)).toEqual([
      "connect-ms p50",
      "connect-ms p99",
      "reply-ms p50",
      "reply-ms p99",
    ]);
    expect(latency.map((line) => line.value(points[0]!))).toEqual([1.5, 4, null, null]);
    const counts = scriptCountLines(names.counters);
    expect(counts.map((line) => [line.label, line.value(points[0]!), line.value(points[1]!)])).toEqual([
      ["replies", 3, 0],
    ]);
  });

  it("has no script metrics for a run without a script", () => {
    expect(scriptMetricNames([idleSeriesPoint({})])).toEqual({ histograms: [], counters: [] });
  });

  it("sums a finished run up per name: percentiles of what was timed, totals of what was counted", () => {
    const summary = {
      script: { "reply-ms": latencyStats(0.25, 1.5) },
      scriptCounts: { replies: 1200 },
    } as unknown as NonNullable<RunView["summary"]>;
    expect(scriptSummaryCells(summary).map((cell) => [cell.label, cell.testId])).toEqual([
      ["reply-ms p50", "summary-script-reply-ms-p50"],
      ["reply-ms p99", "summary-script-reply-ms-p99"],
      ["replies", "summary-script-replies"],
    ]);
    expect(scriptSummaryCells(summary).at(-1)?.value).toBe("1,200");
  });
});
