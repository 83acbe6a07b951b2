import type { ExportSeries } from "@throng/core/metrics-export/export-series";
import { EXPORTED_METRICS } from "@throng/core/metrics-export/export-series";
import { THRONG_VERSION } from "@throng/protocol/version";

/** OTLP's AggregationTemporality.CUMULATIVE: our `_total` counters count from the run's start. */
const CUMULATIVE = 2;

const nanos = (ms: number) => (BigInt(Math.round(ms)) * 1_000_000n).toString();
const attributes = (labels: Record<string, string>) => Object.entries(labels).map(([key, value]) => ({ key, value: { stringValue: value } }));

/**
 * An ExportMetricsServiceRequest in OTLP/HTTP's JSON encoding (opentelemetry-proto, metrics v1): gauges as
 * `gauge`, counters as monotonic cumulative `sum` counted from the run's start, the run's labels as
 * data-point attributes, 64-bit nanosecond times as decimal strings as the JSON mapping requires.
 */
export function encodeOtlpJson(series: readonly ExportSeries[]) {
  const byName = new Map<string, ExportSeries[]>();
  for (const s of series) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  const metrics = [...byName.entries()].map(([name, list]) => {
    const first = list[0]!;
    const dataPoints = list.flatMap((s) =>
      s.samples.map((sample) => ({
        attributes: attributes(s.labels), timeUnixNano: nanos(sample.timestampMs), asDouble: sample.value,
        ...(s.kind === "counter" && s.startMs !== undefined ? { startTimeUnixNano: nanos(Math.min(s.startMs, sample.timestampMs)) } : {}),
      })),
    );
    const description = (EXPORTED_METRICS as Record<string, { help: string } | undefined>)[name]?.help ?? "";
    return first.kind === "counter"
      ? { name, unit: first.unit, description, sum: { aggregationTemporality: CUMULATIVE, isMonotonic: true, dataPoints } }
      : { name, unit: first.unit, description, gauge: { dataPoints } };
  });
  return {
    resourceMetrics: [{
      resource: { attributes: attributes({ "service.name": "throng" }) },
      scopeMetrics: [{ scope: { name: "throng", version: THRONG_VERSION }, metrics }],
    }],
  };
}
