// When two runs differ by less than they vary by themselves. A run's figure (messages/s, a round-trip percentile)
// moves from second to second; a change between two runs smaller than that movement says nothing about the
// server, so Compare calls it "within noise" instead of better or worse. Used by the comparison of runs (core
// reports); the report's comparison with a baseline can ask the same question of the same seconds.
import type { SeriesPoint } from "./snapshot";

/** The summary figures that have a per-second counterpart, and how to read it from a second. */
export const PER_SECOND_FIGURES: Readonly<Record<string, (point: SeriesPoint) => number | null>> = {
  messagesPerSec: (point) => point.messagesReceivedPerSec,
  rttP50Ms: (point) => point.rttP50Ms,
  rttP99Ms: (point) => point.rttP99Ms,
  rttMaxMs: (point) => point.rttMaxMs,
};

/**
 * The seconds a run's spread is read from: those at its most clients (the load it was planned for, not the ramp
 * up to it or a ramp down), or every second when fewer than two are.
 */
export function steadySeconds(points: readonly SeriesPoint[]): readonly SeriesPoint[] {
  const most = Math.max(0, ...points.map((point) => point.clients));
  const steady = points.filter((point) => point.clients === most && point.connections > 0);
  return steady.length >= 2 ? steady : points;
}

/** The standard deviation of a figure over a run's steady seconds; null when fewer than two seconds measured it. */
export function secondSpread(points: readonly SeriesPoint[], figure: string): number | null {
  const read = PER_SECOND_FIGURES[figure];
  return read ? spreadOf(points, read) : null;
}

/** The standard deviation over a run's steady seconds of any per-second reading (an SLO metric's, for the baseline). */
export function spreadOf(points: readonly SeriesPoint[], read: (point: SeriesPoint) => number | null): number | null {
  const values = steadySeconds(points)
    .map(read)
    .filter((value): value is number => value !== null && Number.isFinite(value));
  if (values.length < 2) return null;
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1);
  return Math.sqrt(variance);
}

/**
 * A change from `from` to `to` is noise when it is no larger than either run's own second-to-second spread (its
 * standard deviation). Unknown (null) when neither run has a spread to judge by, or either figure is missing.
 */
export function withinNoise(
  from: number | null,
  to: number | null,
  spreads: readonly (number | null)[],
): boolean | null {
  if (from === null || to === null) return null;
  const known = spreads.filter((spread): spread is number => spread !== null);
  if (known.length === 0) return null;
  return Math.abs(to - from) <= Math.max(...known);
}
