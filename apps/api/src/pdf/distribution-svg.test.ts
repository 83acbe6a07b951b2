import { describe, expect, it } from "vitest";
import type { LatencyDistribution } from "@throng/protocol/latency-distribution";
import { distributionFigures, pdfColumns } from "./distribution-svg";

/** An hour of one-second columns, each with 3 samples in bucket 30 (1 ms) and 1 in bucket 40 (10 ms). */
const hour: LatencyDistribution = {
  runId: "r",
  metric: "rtt",
  from: 0,
  to: 3600,
  stats: { count: 4 * 900, p50Ms: 1.25, p90Ms: 12.5, p99Ms: 12.5, maxMs: 12.6 },
  firstBucket: 30,
  counts: [3 * 900, ...Array(9).fill(0), 900],
  heatmap: {
    secondsPerColumn: 4,
    columnStart: Array.from({ length: 900 }, (_, i) => i * 4),
    counts: Array.from({ length: 900 }, () => [3, ...Array(9).fill(0), 1]),
    maxCount: 3,
  },
};
const f = {
  ms: (value: number | null) => (value === null ? "not measured" : `${value} ms`),
  integer: (value: number) => String(value),
};

describe("the PDF's latency distribution", () => {
  it("adds the heatmap's columns together to at most 160, every sample kept", () => {
    const columns = pdfColumns(hour);
    expect(columns.length).toBeLessThanOrEqual(160);
    expect(columns[0]).toMatchObject({ start: 0, seconds: 24 });
    expect(columns.flatMap((column) => column.counts).reduce((a, b) => a + b, 0)).toBe(hour.stats.count);
  });

  it("captions each metric with its percentiles and draws its markers, and leaves out one without samples", () => {
    const html = distributionFigures(f, [
      { name: "Round trips", distribution: hour },
      {
        name: "Connects",
        distribution: { ...hour, stats: { count: 0, p50Ms: null, p90Ms: null, p99Ms: null, maxMs: null } },
      },
    ]);
    expect(html).toContain("Round trips: 3600 samples · p50 1.25 ms · p90 12.5 ms · p99 12.5 ms · max 12.6 ms");
    expect(html).toContain(">p99 12.5 ms</text>");
    expect(html).not.toContain("Connects");
  });
});
