// What the run page and report draw of a latency metric's distribution (GET /api/runs/:id/distribution): which
// metrics a run measured, the words for each, the log buckets' edges, and the heatmap's colours.
import { bucketLowerMs, type DistributionMetric, type LatencyDistribution } from "@throng/protocol/latency-distribution";
import type { LatencyStats } from "@throng/protocol/snapshot";

const WORDS: Record<string, string> = {
  rtt: "Round trips",
  rttCorrected: "Round trips from the intended send (corrected)",
  connect: "Connects",
  login: "Logins (session)",
  broadcast: "Broadcasts",
  jitter: "Jitter",
};

/** The words for a metric: "Round trips", "Script: reply-ms". */
export function distributionMetricName(metric: DistributionMetric): string {
  return metric.startsWith("script:") ? `Script: ${metric.slice("script:".length)}` : (WORDS[metric] ?? metric);
}

/** What a summary or a second says of its latencies. */
interface Figures {
  rttP50Ms?: number | null;
  roundTrips?: number;
  latency?: Partial<Record<string, LatencyStats>>;
  script?: Record<string, LatencyStats>;
}

const measured = (stats: LatencyStats | undefined) => (stats?.count ?? 0) > 0;

/**
 * The latency metrics with samples in a run's summary or any of its seconds, round trips first, then the other
 * latencies in the snapshot's order, then each script histogram by name.
 */
export function distributionMetrics(figures: readonly Figures[]): DistributionMetric[] {
  const found = new Set<string>();
  for (const figure of figures) {
    if ((figure.roundTrips ?? 0) > 0 || (figure.rttP50Ms !== null && figure.rttP50Ms !== undefined)) found.add("rtt");
    for (const [name, stats] of Object.entries(figure.latency ?? {})) if (measured(stats)) found.add(name);
    for (const [name, stats] of Object.entries(figure.script ?? {})) if (measured(stats)) found.add(`script:${name}`);
  }
  const order = Object.keys(WORDS);
  const builtIn = order.filter((name) => found.has(name));
  const scripts = [...found].filter((name) => name.startsWith("script:")).sort();
  return [...builtIn, ...scripts];
}

/** Each bucket's lower and upper edge in milliseconds, in the answer's order. */
export function bucketEdgesMs(distribution: Pick<LatencyDistribution, "firstBucket" | "counts">): { lowMs: number; highMs: number }[] {
  return distribution.counts.map((_, i) => ({ lowMs: bucketLowerMs(distribution.firstBucket + i), highMs: bucketLowerMs(distribution.firstBucket + i + 1) }));
}

/** A latency in ms for an axis: "250 µs", "1.6 ms", "40 ms", "1.2 s". */
export function formatLatencyTick(ms: number): string {
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 10) return `${Number(ms.toFixed(1))} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * The heatmap's colour of a cell holding `count` samples, on a log scale up to `maxCount` (a tail of a few slow
 * samples must show next to a mode of thousands): from pale yellow through orange to dark purple; transparent for 0.
 */
export function heatColour(count: number, maxCount: number): string | null {
  if (count <= 0 || maxCount <= 0) return null;
  const share = maxCount === 1 ? 1 : Math.log(count) / Math.log(maxCount);
  // Hue 55 (yellow) → 280 (purple) going through red, lightness 88% → 25%.
  const hue = (55 - share * 135 + 360) % 360;
  const lightness = 88 - share * 63;
  return `hsl(${Math.round(hue)} 85% ${Math.round(lightness)}%)`;
}

/** The legend's stops: counts at even steps of the log scale, 1 to maxCount, without repeats. */
export function legendCounts(maxCount: number, stops = 5): number[] {
  if (maxCount <= 0) return [];
  const counts = Array.from({ length: stops }, (_, i) => Math.round(maxCount ** (i / (stops - 1))));
  return [...new Set(counts)];
}
