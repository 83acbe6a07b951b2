// What the run page and report draw of a latency metric's distribution (GET /api/runs/:id/distribution): which
// metrics a run measured, the words for each, the log buckets' edges, and the heatmap's colours.
import { bucketLowerMs, type LatencyDistribution } from "@throng/protocol/latency-distribution";

export { distributionMetricName, distributionMetrics } from "@throng/protocol/latency-distribution";

/** Each bucket's lower and upper edge in milliseconds, in the answer's order. */
export function bucketEdgesMs(
  distribution: Pick<LatencyDistribution, "firstBucket" | "counts">,
): { lowMs: number; highMs: number }[] {
  return distribution.counts.map((_, i) => ({
    lowMs: bucketLowerMs(distribution.firstBucket + i),
    highMs: bucketLowerMs(distribution.firstBucket + i + 1),
  }));
}

/** A latency in ms for an axis: "250 µs", "1.6 ms", "40 ms", "1.2 s". */
export function formatLatencyTick(ms: number): string {
  // Two significant digits: a bucket's edge 10^(27/10) µs reads "500 µs", not "501 µs".
  const two = (value: number) => Number(value.toPrecision(2));
  if (ms < 1) return `${two(ms * 1000)} µs`;
  if (ms < 1000) return `${two(ms)} ms`;
  return `${two(ms / 1000)} s`;
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
