import type { ExportSeries, HistogramSeries } from "@throng/core/metrics-export/export-series";
import { EXPORTED_METRICS } from "@throng/core/metrics-export/export-series";
import { THRONG_VERSION } from "@throng/protocol/version";

/** OTLP's AggregationTemporality.CUMULATIVE: our `_total` counters and the histogram count from the run's start. */
const CUMULATIVE = 2;

const nanos = (ms: number) => (BigInt(Math.round(ms)) * 1_000_000n).toString();
const attributes = (labels: Record<string, string>) =>
  Object.entries(labels).map(([key, value]) => ({ key, value: { stringValue: value } }));

/** A cumulative explicit-bucket HistogramDataPoint per sample: bucketCounts per bucket (not cumulative), fixed64s as strings. */
function histogramPoints(s: HistogramSeries) {
  return s.samples.map((sample) => ({
    attributes: attributes(s.labels),
    startTimeUnixNano: nanos(Math.min(s.startMs, sample.timestampMs)),
    timeUnixNano: nanos(sample.timestampMs),
    count: String(sample.count),
    sum: sample.sumSec,
    bucketCounts: sample.counts.map(String),
    explicitBounds: [...s.bounds],
  }));
}

/**
 * An ExportMetricsServiceRequest in OTLP/HTTP's JSON encoding (opentelemetry-proto, metrics v1): gauges as
 * `gauge`, counters as monotonic cumulative `sum` counted from the run's start, histograms as cumulative
 * explicit-bucket `histogram`, the run's labels as
 * data-point attributes, 64-bit nanosecond times as decimal strings as the JSON mapping requires.
 */
export function encodeOtlpJson(series: readonly ExportSeries[]) {
  const byName = new Map<string, ExportSeries[]>();
  for (const s of series) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  const metrics = [...byName.entries()].map(([name, list]) => {
    const first = list[0]!;
    const description = (EXPORTED_METRICS as Record<string, { help: string } | undefined>)[name]?.help ?? "";
    if (first.kind === "histogram")
      return {
        name,
        unit: first.unit,
        description,
        histogram: {
          aggregationTemporality: CUMULATIVE,
          dataPoints: list.flatMap((s) => (s.kind === "histogram" ? histogramPoints(s) : [])),
        },
      };
    const dataPoints = list.flatMap((s) =>
      s.kind === "histogram"
        ? []
        : s.samples.map((sample) => ({
            attributes: attributes(s.labels),
            timeUnixNano: nanos(sample.timestampMs),
            asDouble: sample.value,
            ...(s.kind === "counter" && s.startMs !== undefined
              ? { startTimeUnixNano: nanos(Math.min(s.startMs, sample.timestampMs)) }
              : {}),
          })),
    );
    return first.kind === "counter"
      ? {
          name,
          unit: first.unit,
          description,
          sum: { aggregationTemporality: CUMULATIVE, isMonotonic: true, dataPoints },
        }
      : { name, unit: first.unit, description, gauge: { dataPoints } };
  });
  return {
    resourceMetrics: [
      {
        resource: { attributes: attributes({ "service.name": "throng" }) },
        scopeMetrics: [{ scope: { name: "throng", version: THRONG_VERSION }, metrics }],
      },
    ],
  };
}
