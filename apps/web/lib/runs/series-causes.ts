import type { SeriesPoint } from "@throng/protocol/snapshot";
import type { ChartLine } from "../charts/series";

const CAUSE_COLOURS = ["#cf222e", "#bc4c00", "#8250df", "#0969da", "#9a6700", "#1a7f37", "#6e7781", "#d63384"];

/**
 * Closes the agent made itself (a step-down, a login-storm client leaving, the run's end) are the plan at work,
 * not disconnects: the clients chart shows them, and the cause chart leaves them out.
 */
const PLANNED_CLOSE = "agent";

/** Every cause any second reported, for errors (`errorsByKind`) and disconnects (`closesByCause`), sorted. */
export function causeNames(points: readonly SeriesPoint[]): { errors: string[]; closes: string[] } {
  const errors = new Set<string>();
  const closes = new Set<string>();
  for (const p of points) {
    for (const key of Object.keys(p.errorsByKind ?? {})) errors.add(key);
    for (const key of Object.keys(p.closesByCause ?? {})) if (key !== PLANNED_CLOSE) closes.add(key);
  }
  return { errors: [...errors].sort(), closes: [...closes].sort() };
}

/** One line per cause: errors as "error: timeout", disconnects as "closed: server"; a second without it is 0. */
export function causeLines(errors: readonly string[], closes: readonly string[]): ChartLine[] {
  const lines: Omit<ChartLine, "color">[] = [
    ...errors.map((name) => ({ label: `error: ${name}`, value: (p: SeriesPoint) => p.errorsByKind?.[name] ?? 0 })),
    ...closes.map((name) => ({ label: `closed: ${name}`, value: (p: SeriesPoint) => p.closesByCause?.[name] ?? 0 })),
  ];
  return lines.map((line, i) => ({ ...line, color: CAUSE_COLOURS[i % CAUSE_COLOURS.length]! }));
}

/**
 * A delivery count of one second: points leave a count out when it is 0, so a second that measured delivery at all
 * (reach or loss) reads 0 for a missing count; only a second that measured nothing has no value ("—").
 */
const deliveryCount = (p: SeriesPoint, count: number | undefined) =>
  count ?? (p.broadcastReach != null || p.lost != null ? 0 : null);

/** Movement-sync delivery: reach in percent, and messages lost, duplicated or out of order per second. */
export const DELIVERY_LINES: ChartLine[] = [
  {
    label: "Reach %",
    color: "#1a7f37",
    value: (p) =>
      p.broadcastReach === null || p.broadcastReach === undefined ? null : Math.round(p.broadcastReach * 1000) / 10,
  },
  { label: "Lost", color: "#cf222e", value: (p) => deliveryCount(p, p.lost) },
  { label: "Duplicates", color: "#bc4c00", value: (p) => deliveryCount(p, p.duplicates) },
  { label: "Out of order", color: "#8250df", value: (p) => deliveryCount(p, p.outOfOrder) },
];

/** True when any second measured delivery (movement-sync reach, or UDP loss). */
export function hasDelivery(points: readonly SeriesPoint[]): boolean {
  return points.some((p) => p.broadcastReach !== undefined || p.lost !== undefined);
}
