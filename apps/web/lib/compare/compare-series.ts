// The compare page's overlaid charts: each run's seconds laid on one axis of seconds since that run's start, so
// runs started hours apart line up and a slower ramp or an earlier break shows where it happened.
import type { SeriesPoint } from "@throng/protocol/snapshot";

/** One run's line colour per position in the comparison (the first picked is the baseline). */
export const RUN_COLOURS = ["#0969da", "#cf222e", "#1a7f37", "#9a6700", "#8250df", "#bf3989"] as const;
export const runColour = (index: number): string => RUN_COLOURS[index % RUN_COLOURS.length]!;

/** A figure the overlaid charts draw, one chart each. */
export interface OverlaidFigure {
  key: string;
  title: string;
  unit: "ms" | "count";
  value: (point: SeriesPoint) => number | null;
}

export const OVERLAID_FIGURES: readonly OverlaidFigure[] = [
  { key: "rttP99Ms", title: "RTT p99", unit: "ms", value: (point) => point.rttP99Ms },
  {
    key: "messagesPerSec",
    title: "Messages received/s",
    unit: "count",
    value: (point) => point.messagesReceivedPerSec,
  },
  { key: "errors", title: "Errors/s", unit: "count", value: (point) => point.errors },
];

/**
 * uPlot's columns for one figure over several runs: x is the seconds since each run's first point (the union of
 * every run's offsets, ascending), then one column per run, null at an offset that run did not measure (so its
 * line breaks there rather than joining across a gap or past its end).
 */
export function alignAtStart(
  runs: readonly (readonly SeriesPoint[])[],
  value: (point: SeriesPoint) => number | null,
): [number[], ...(number | null)[][]] {
  const byOffset = runs.map((points) => {
    const start = points[0]?.t ?? 0;
    return new Map(points.map((point) => [point.t - start, value(point)]));
  });
  const offsets = [...new Set(byOffset.flatMap((values) => [...values.keys()]))].sort((a, b) => a - b);
  return [offsets, ...byOffset.map((values) => offsets.map((offset) => values.get(offset) ?? null))];
}
