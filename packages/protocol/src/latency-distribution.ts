// A latency metric's distribution over a run or a part of it (GET /api/runs/:id/distribution): how many samples
// fell in each log-spaced latency bucket, with the percentiles of the merged HDR histogram, and the same buckets
// second by second (the heatmap). Built on the server from the stored per-second histograms, merged, never averaged.
import { z } from "zod";
import { SCRIPT_METRIC_NAME } from "./script-metrics";
import { LatencyStats } from "./snapshot";
import { rangeSecond } from "./run-range";

/** The latency histograms every snapshot may carry, by the name a distribution asks for. */
export const DISTRIBUTION_LATENCIES = ["rtt", "rttCorrected", "connect", "login", "broadcast", "jitter"] as const;
export type DistributionLatency = (typeof DISTRIBUTION_LATENCIES)[number];

const METRIC_PATTERN = new RegExp(`^(?:${DISTRIBUTION_LATENCIES.join("|")}|script:${SCRIPT_METRIC_NAME})$`);
const METRIC_HELP = `${DISTRIBUTION_LATENCIES.join(", ")} or script:NAME (a script's ctx.measure histogram)`;

/** Which latency a distribution reads: one of DISTRIBUTION_LATENCIES, or "script:NAME" for a script's histogram. */
export const DistributionMetric = z
  .string({ message: `metric is required: ${METRIC_HELP}` })
  .regex(METRIC_PATTERN, `metric must be ${METRIC_HELP}`);
export type DistributionMetric = z.infer<typeof DistributionMetric>;

/** The stored snapshot histogram a metric reads: the RTT column, a histogram by its snapshot name, or a script's. */
export function distributionSource(
  metric: DistributionMetric,
): { kind: "rtt" } | { kind: "histogram"; name: string } | { kind: "script"; name: string } {
  if (metric === "rtt") return { kind: "rtt" };
  if (metric.startsWith("script:")) return { kind: "script", name: metric.slice("script:".length) };
  return { kind: "histogram", name: `${metric}Us` };
}

/**
 * The query of GET /api/runs/:id/distribution: the metric, and optionally the range (`from` and `to` together,
 * whole seconds since the run's start; the seconds from `from` up to, not including, `to`), else the whole run.
 */
export const DistributionQuery = z
  .object({ metric: DistributionMetric, from: rangeSecond("from").optional(), to: rangeSecond("to").optional() })
  .strict()
  .refine((query) => (query.from === undefined) === (query.to === undefined), {
    path: ["to"],
    message: "give from and to together, or neither for the whole run",
  })
  .refine((query) => query.from === undefined || query.to! > query.from, {
    path: ["to"],
    message: "to must be after from (the range holds the seconds from `from` up to `to`)",
  });
export type DistributionQuery = z.infer<typeof DistributionQuery>;

/** Bucket k of a distribution holds the latencies from 10^(k/10) µs up to, not including, 10^((k+1)/10) µs. */
export const BUCKETS_PER_DECADE = 10;

/** The lower edge of log bucket `k`, in milliseconds. */
export function bucketLowerMs(k: number): number {
  return 10 ** (k / BUCKETS_PER_DECADE) / 1000;
}

/** The log bucket a latency (µs, ≥ 1) falls in. */
export function bucketOf(valueUs: number): number {
  // The small epsilon keeps an exact edge (1000 µs = 10^3) in the bucket it starts, against log10's rounding.
  return Math.floor(Math.log10(Math.max(1, valueUs)) * BUCKETS_PER_DECADE + 1e-9);
}

/** A metric's distribution and heatmap over a run or a range of it. */
export const LatencyDistribution = z.object({
  runId: z.string(),
  metric: DistributionMetric,
  /** The range read, whole seconds since the run's start (`to` exclusive); the whole run's when none was asked for. */
  from: z.number().int().min(0),
  to: z.number().int().min(0),
  /** Percentiles of the range's histograms merged (count 0 and nulls when nothing was recorded). */
  stats: LatencyStats,
  /** The first log bucket (k, see bucketLowerMs); `counts[i]` is bucket `firstBucket + i`. Empty when count is 0. */
  firstBucket: z.number().int(),
  /** Samples per bucket over the whole range; they sum to stats.count. */
  counts: z.array(z.number().int().min(0)),
  heatmap: z.object({
    /** Seconds each column merges (1, or more on a long range so that at most MAX_HEATMAP_COLUMNS are drawn). */
    secondsPerColumn: z.number().int().min(1),
    /** Each column's first second, since the run's start, in order; a column without samples is left out. */
    columnStart: z.array(z.number().int().min(0)),
    /** counts[column][bucket - firstBucket]: samples of that column in that bucket. */
    counts: z.array(z.array(z.number().int().min(0))),
    /** The largest count of any cell: the legend's top. */
    maxCount: z.number().int().min(0),
  }),
});
export type LatencyDistribution = z.infer<typeof LatencyDistribution>;

/** A heatmap holds at most this many columns: a one-hour run's seconds are merged four to a column (HDR merge). */
export const MAX_HEATMAP_COLUMNS = 900;

/** What a summary or a second says of its latencies. */
interface LatencyFigures {
  rttP50Ms?: number | null;
  roundTrips?: number;
  latency?: Partial<Record<string, LatencyStats>>;
  script?: Record<string, LatencyStats>;
}

const measured = (stats: LatencyStats | undefined) => (stats?.count ?? 0) > 0;

/**
 * The latency metrics with samples in a run's summary or any of its seconds: round trips first, then the other
 * latencies in DISTRIBUTION_LATENCIES' order, then each script histogram by name. The run page, the report and
 * its PDF offer these.
 */
export function distributionMetrics(figures: readonly LatencyFigures[]): DistributionMetric[] {
  const found = new Set<string>();
  for (const figure of figures) {
    if ((figure.roundTrips ?? 0) > 0 || (figure.rttP50Ms !== null && figure.rttP50Ms !== undefined)) found.add("rtt");
    for (const [name, stats] of Object.entries(figure.latency ?? {})) if (measured(stats)) found.add(name);
    for (const [name, stats] of Object.entries(figure.script ?? {})) if (measured(stats)) found.add(`script:${name}`);
  }
  const builtIn = DISTRIBUTION_LATENCIES.filter((name) => found.has(name));
  const scripts = [...found].filter((name) => name.startsWith("script:")).sort();
  return [...builtIn, ...scripts];
}

const WORDS: Record<DistributionLatency, string> = {
  rtt: "Round trips",
  rttCorrected: "Round trips from the intended send (corrected)",
  connect: "Connects",
  login: "Logins (session)",
  broadcast: "Broadcasts",
  jitter: "Jitter",
};

/** The words for a metric: "Round trips", "Script: reply-ms". */
export function distributionMetricName(metric: DistributionMetric): string {
  return metric.startsWith("script:")
    ? `Script: ${metric.slice("script:".length)}`
    : (WORDS[metric as DistributionLatency] ?? metric);
}
