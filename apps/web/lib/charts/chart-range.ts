// The x range a run chart draws: the seconds it has (or the planned window), with half a second either side so the
// first and last seconds' points, and a lone first second, are drawn whole inside the plot rather than on its edge.
import { xRange } from "./series";

const EDGE_SECONDS = 0.5;

export function plotXRange(xs: ArrayLike<number>, span?: readonly [number, number] | null): [number, number] | null {
  const range = xRange(xs, span);
  return range && [range[0] - EDGE_SECONDS, range[1] + EDGE_SECONDS];
}

/**
 * How far above the measurements an SLO line may be and still stretch the y axis to itself. Past it, the axis
 * follows the measurements (a 2,000 ms threshold over 2 ms round trips would flatten them onto the floor) and the
 * threshold is written at the plot's top as lying above it.
 */
export const THRESHOLD_STRETCH = 4;

/** The y range of a run chart: from 0 (or a negative minimum) to the highest of the data and of near thresholds. */
export function plotYRange(min: number | null, max: number | null, thresholds: readonly number[]): [number, number] {
  const data = max ?? 0;
  const near = thresholds.filter((value) => data <= 0 || value <= data * THRESHOLD_STRETCH);
  const top = Math.max(data, ...near);
  return [Math.min(0, min ?? 0), top > 0 ? top * 1.1 : 1];
}

/** The run's first second (epoch seconds), the one its `startedAt` falls in: what a view range counts from. */
export function runStartSecond(startedAt: string | null | undefined): number | null {
  if (!startedAt) return null;
  const ms = Date.parse(startedAt);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/** The x range of a chart zoomed to `range`: its first to its last second, with the same half second either side. */
export function zoomedXRange(start: number, range: { from: number; to: number }): [number, number] {
  return [start + range.from - EDGE_SECONDS, start + range.to - 1 + EDGE_SECONDS];
}

/**
 * The view range a drag across the plot from x `left` to `right` (epoch seconds) selects: the seconds whose points
 * lie inside it, at least the one nearest its middle (a narrow drag between two points), never before the start.
 */
export function selectedRange(start: number, left: number, right: number): { from: number; to: number } | null {
  if (!Number.isFinite(left) || !Number.isFinite(right)) return null;
  const [low, high] = left <= right ? [left, right] : [right, left];
  let first = Math.ceil(low);
  let last = Math.floor(high);
  if (last < first) first = last = Math.round((low + high) / 2);
  const from = Math.max(0, first - start);
  const to = Math.max(from + 1, last - start + 1);
  return { from, to };
}
