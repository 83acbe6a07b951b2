import type { HistogramSeries } from "@throng/core/metrics-export/export-series";

/**
 * A run's round-trip histogram as both sinks' encoders receive it: two bucket bounds (three buckets, the last one
 * open) and one second of three samples; a test overrides what its encoding is about (the name, the start, more
 * seconds).
 */
export function histogramSeries(over: Partial<HistogramSeries> = {}): HistogramSeries {
  return {
    name: "throng_rtt_histogram_seconds",
    kind: "histogram",
    unit: "s",
    labels: { run_id: "r" },
    startMs: 500,
    bounds: [0.001, 0.01],
    samples: [{ timestampMs: 1_000, counts: [2, 0, 1], count: 3, sumSec: 0.5 }],
    ...over,
  };
}
