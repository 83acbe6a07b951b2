import { describe, expect, it } from "vitest";
import { histogramSeries } from "./histogram-series.test-support";
import { encodeOtlpJson } from "./otlp-json";

describe("OTLP JSON encoding", () => {
  it("sends a histogram as cumulative explicit-bucket points: per-bucket counts, one more than the bounds, 64-bit integers as strings", () => {
    const request = encodeOtlpJson([histogramSeries()]);
    expect(request.resourceMetrics[0]!.scopeMetrics[0]!.metrics).toEqual([
      {
        name: "throng_rtt_histogram_seconds",
        unit: "s",
        description: expect.stringContaining("buckets"),
        histogram: {
          aggregationTemporality: 2,
          dataPoints: [
            {
              attributes: [{ key: "run_id", value: { stringValue: "r" } }],
              startTimeUnixNano: "500000000",
              timeUnixNano: "1000000000",
              count: "3",
              sum: 0.5,
              bucketCounts: ["2", "0", "1"],
              explicitBounds: [0.001, 0.01],
            },
          ],
        },
      },
    ]);
  });
});
