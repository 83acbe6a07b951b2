import type { SeriesPoint } from "@throng/protocol/snapshot";
import type { RunSummary } from "@throng/protocol/run";
import { addRttBuckets, emptyRttBuckets, RTT_BUCKET_BOUNDS_SEC, type RttBuckets } from "./rtt-buckets";

/** One exported time series: a metric name, its labels and its samples (epoch milliseconds, oldest first). */
export interface ScalarSeries {
  name: string;
  kind: "gauge" | "counter";
  /** For OTLP's `unit` field (UCUM). */
  unit: string;
  labels: Record<string, string>;
  /** Counters: when they started counting (the run's start; OTLP's startTimeUnixNano). */
  startMs?: number;
  samples: { timestampMs: number; value: number }[];
}

/**
 * A cumulative histogram counted from `startMs`: remote write sends it as classic `_bucket{le}`, `_count` and
 * `_sum` counters, OTLP as explicit-bucket histogram points. Each sample's counts are per bucket (not cumulative).
 */
export interface HistogramSeries {
  name: string;
  kind: "histogram";
  unit: string;
  labels: Record<string, string>;
  startMs: number;
  /** Upper bounds, +Inf implied: each sample has one more count than bounds. */
  bounds: readonly number[];
  samples: ({ timestampMs: number } & RttBuckets)[];
}
export type ExportSeries = ScalarSeries | HistogramSeries;

// Each exported metric's kind, unit (UCUM, as OpenTelemetry writes units) and help text.
const gauge = (unit: string, help: string) => ({ kind: "gauge" as const, unit, help });
const counter = (unit: string, help: string) => ({ kind: "counter" as const, unit, help });
const histogram = (unit: string, help: string) => ({ kind: "histogram" as const, unit, help });

/** Every metric we export, with its kind and unit: the docs, the Grafana dashboard's test and the encoders read it. */
export const EXPORTED_METRICS = {
  throng_rtt_seconds: gauge(
    "s",
    "Round-trip time from the run's HDR histogram of the second: quantile 0.5, 0.99 and 1 (the max)",
  ),
  throng_rtt_histogram_seconds: histogram(
    "s",
    "Round trips since the run started in fixed buckets of round-trip time, from each second's HDR histogram (sum: the HDR mean x count)",
  ),
  throng_connections: gauge("{connection}", "Open connections at the end of the second"),
  throng_clients: gauge("{client}", "Simulated clients"),
  throng_agents: gauge("{agent}", "Agents that reported the second"),
  throng_messages_sent_per_second: gauge("{message}/s", "Messages sent in the second"),
  throng_messages_received_per_second: gauge("{message}/s", "Messages received in the second"),
  throng_bytes_sent_per_second: gauge("By/s", "Bytes sent in the second"),
  throng_bytes_received_per_second: gauge("By/s", "Bytes received in the second"),
  throng_errors_per_second: gauge("{error}/s", "Errors in the second"),
  throng_messages_sent_total: counter("{message}", "Messages sent since the run started"),
  throng_messages_received_total: counter("{message}", "Messages received since the run started"),
  throng_errors_total: counter("{error}", "Errors since the run started"),
  throng_run_duration_seconds: gauge("s", "Run summary: measured seconds"),
  throng_run_messages_sent: gauge("{message}", "Run summary: messages sent"),
  throng_run_errors: gauge("{error}", "Run summary: errors"),
  throng_run_peak_connections: gauge("{connection}", "Run summary: most connections open at once"),
  throng_run_messages_per_second: gauge("{message}/s", "Run summary: mean messages per second"),
  throng_run_rtt_seconds: gauge("s", "Run summary: round-trip time over the whole run (quantile 0.5, 0.99, 1)"),
};
export type ExportedMetric = keyof typeof EXPORTED_METRICS;

/** The suffixes a histogram's Prometheus series carry (remote write sends classic histograms). */
export const HISTOGRAM_SUFFIXES = ["_bucket", "_count", "_sum"] as const;

/** Every series name a Prometheus receives from us: histograms as their `_bucket`, `_count` and `_sum`. */
export function prometheusSeriesNames(): string[] {
  return Object.entries(EXPORTED_METRICS).flatMap(([name, metric]) =>
    metric.kind === "histogram" ? HISTOGRAM_SUFFIXES.map((suffix) => `${name}${suffix}`) : [name],
  );
}

/** The running sums behind the `_total` counters and the RTT histogram, carried from one push of a run to the next. */
export interface ExportTotals {
  messagesSent: number;
  messagesReceived: number;
  errors: number;
  rtt: RttBuckets;
}
export const NO_TOTALS: ExportTotals = { messagesSent: 0, messagesReceived: 0, errors: 0, rtt: emptyRttBuckets() };

/** The labels every series of a run carries. */
export interface RunLabels {
  run_id: string;
  plan: string;
  scenario: string;
  org: string;
}

type ScalarMetric = {
  [K in ExportedMetric]: (typeof EXPORTED_METRICS)[K]["kind"] extends "histogram" ? never : K;
}[ExportedMetric];

function collector(labels: RunLabels, startMs?: number) {
  const series = new Map<string, ScalarSeries>();
  return {
    add(name: ScalarMetric, timestampMs: number, value: number | null | undefined, extra: Record<string, string> = {}) {
      if (value === null || value === undefined || !Number.isFinite(value)) return;
      const key = `${name}${JSON.stringify(extra)}`;
      let entry = series.get(key);
      if (!entry) {
        entry = {
          name,
          kind: EXPORTED_METRICS[name].kind,
          unit: EXPORTED_METRICS[name].unit,
          labels: { ...labels, ...extra },
          samples: [],
          ...(EXPORTED_METRICS[name].kind === "counter" && startMs !== undefined ? { startMs } : {}),
        };
        series.set(key, entry);
      }
      entry.samples.push({ timestampMs, value });
    },
    series: () => [...series.values()],
  };
}

const seconds = (ms: number | null) => (ms === null ? null : ms / 1000);

/**
 * A run's seconds as exported series, each sample stamped with the second it measured. Percentiles are the values
 * the run's HDR histograms give (quantile gauges), not buckets: see docs/metrics-export.md for why.
 * Beside them, the RTT histogram: `rttBySecond` (each second's buckets, from its snapshots) added up since the run's
 * start; a second without round trips repeats the total, as a counter does.
 * `totals` are the sums before the first point (counting from `startedAtMs`); the returned totals include every point.
 */
export function seriesOfSeconds(
  points: readonly SeriesPoint[],
  labels: RunLabels,
  totals: ExportTotals,
  startedAtMs: number,
  rttBySecond: ReadonlyMap<number, RttBuckets> = new Map(),
): { series: ExportSeries[]; totals: ExportTotals } {
  const out = collector(labels, startedAtMs);
  const sums = { ...totals };
  const name = "throng_rtt_histogram_seconds";
  const histogram: HistogramSeries = {
    name,
    kind: "histogram",
    unit: EXPORTED_METRICS[name].unit,
    labels: { ...labels },
    startMs: startedAtMs,
    bounds: RTT_BUCKET_BOUNDS_SEC,
    samples: [],
  };
  for (const point of points) {
    const at = point.t * 1000;
    const rtt = rttBySecond.get(point.t);
    if (rtt) sums.rtt = addRttBuckets(sums.rtt, rtt);
    histogram.samples.push({ timestampMs: at, ...sums.rtt });
    sums.messagesSent += point.messagesSentPerSec;
    sums.messagesReceived += point.messagesReceivedPerSec;
    sums.errors += point.errors;
    out.add("throng_rtt_seconds", at, seconds(point.rttP50Ms), { quantile: "0.5" });
    out.add("throng_rtt_seconds", at, seconds(point.rttP99Ms), { quantile: "0.99" });
    out.add("throng_rtt_seconds", at, seconds(point.rttMaxMs), { quantile: "1" });
    out.add("throng_connections", at, point.connections);
    out.add("throng_clients", at, point.clients);
    out.add("throng_agents", at, point.agents);
    out.add("throng_messages_sent_per_second", at, point.messagesSentPerSec);
    out.add("throng_messages_received_per_second", at, point.messagesReceivedPerSec);
    out.add("throng_bytes_sent_per_second", at, point.bytesSentPerSec);
    out.add("throng_bytes_received_per_second", at, point.bytesReceivedPerSec);
    out.add("throng_errors_per_second", at, point.errors);
    out.add("throng_messages_sent_total", at, sums.messagesSent);
    out.add("throng_messages_received_total", at, sums.messagesReceived);
    out.add("throng_errors_total", at, sums.errors);
  }
  return { series: [...out.series(), ...(histogram.samples.length ? [histogram] : [])], totals: sums };
}

/** The run's summary as one sample per figure, stamped with the moment the run ended. */
export function seriesOfSummary(summary: RunSummary, labels: RunLabels, endedAtMs: number): ExportSeries[] {
  const out = collector(labels);
  out.add("throng_run_duration_seconds", endedAtMs, summary.durationSec);
  out.add("throng_run_messages_sent", endedAtMs, summary.messagesSent);
  out.add("throng_run_errors", endedAtMs, summary.errors);
  out.add("throng_run_peak_connections", endedAtMs, summary.peakConnections);
  out.add("throng_run_messages_per_second", endedAtMs, summary.messagesPerSec);
  out.add("throng_run_rtt_seconds", endedAtMs, seconds(summary.rttP50Ms), { quantile: "0.5" });
  out.add("throng_run_rtt_seconds", endedAtMs, seconds(summary.rttP99Ms), { quantile: "0.99" });
  out.add("throng_run_rtt_seconds", endedAtMs, seconds(summary.rttMaxMs), { quantile: "1" });
  return out.series();
}

/**
 * The seconds of a live run that may go out now: in order after the last one sent, and only while each is
 * complete (every load shard's snapshot merged) and a moment old. A Prometheus series takes no sample older
 * than its newest, so a second is never sent before it is final; the rest go when the run has ended.
 */
export function settledSeconds(
  points: readonly SeriesPoint[],
  after: number | null,
  input: { ended: boolean; loadShards: number; nowMs: number; settleMs: number },
): SeriesPoint[] {
  const pending = points.filter((point) => after === null || point.t > after).sort((a, b) => a.t - b.t);
  if (input.ended) return pending;
  const ready: SeriesPoint[] = [];
  for (const point of pending) {
    if (point.agents < input.loadShards || (point.t + 1) * 1000 > input.nowMs - input.settleMs) break;
    ready.push(point);
  }
  return ready;
}
