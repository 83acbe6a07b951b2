import type { SeriesPoint } from "@throng/protocol/snapshot";

/**
 * Merges points into a series sorted by `t`. A point for a second already present replaces it:
 * the API re-merges a second when a late snapshot from another agent arrives.
 */
export function mergePoints(current: readonly SeriesPoint[], incoming: readonly SeriesPoint[]): SeriesPoint[] {
  if (incoming.length === 0) return current as SeriesPoint[];
  const byTime = new Map<number, SeriesPoint>();
  for (const point of current) byTime.set(point.t, point);
  for (const point of incoming) byTime.set(point.t, point);
  return [...byTime.values()].sort((a, b) => a.t - b.t);
}

/** One line on a chart: its legend label, colour and how to read it from a point. */
export interface ChartLine {
  label: string;
  color: string;
  /** Dashed lines are references (e.g. the clients asked for), drawn under the measured ones. */
  dash?: number[];
  value: (point: SeriesPoint) => number | null;
}

/** Column-wise data as uPlot wants it: x (epoch seconds) then one array per line. */
export function toColumns(points: readonly SeriesPoint[], lines: readonly ChartLine[]): [number[], ...(number | null)[][]] {
  const xs = points.map((point) => point.t);
  const ys = lines.map((line) => points.map((point) => line.value(point)));
  return [xs, ...ys];
}

/** The x range to show: the data, widened to `span` (epoch seconds) if given; null without data. */
export function xRange(xs: ArrayLike<number>, span?: readonly [number, number] | null): [number, number] | null {
  const first = xs[0];
  const last = xs[xs.length - 1];
  if (first === undefined || last === undefined) return null;
  const low = Math.min(first, span?.[0] ?? first);
  const high = Math.max(last, span?.[1] ?? last);
  return low === high ? [low - 1, high + 1] : [low, high];
}

export const CONNECTION_LINES: ChartLine[] = [
  { label: "Clients", color: "#8b949e", dash: [6, 4], value: (p) => p.clients },
  { label: "Connections", color: "#1f6feb", value: (p) => p.connections },
];

export const MESSAGE_LINES: ChartLine[] = [
  { label: "Sent/s", color: "#1a7f37", value: (p) => p.messagesSentPerSec },
  { label: "Received/s", color: "#9a6700", value: (p) => p.messagesReceivedPerSec },
];

export const RTT_LINES: ChartLine[] = [
  { label: "p50 (ms)", color: "#1f6feb", value: (p) => p.rttP50Ms },
  { label: "p99 (ms)", color: "#cf222e", value: (p) => p.rttP99Ms },
];
