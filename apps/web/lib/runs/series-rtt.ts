// The round-trip chart's second set of lines: the times measured from the intended send time, shown by its switch.
import type { SeriesPoint } from "@throng/protocol/snapshot";
import type { ChartLine } from "../charts/series";

/**
 * The round-trip chart measured from the intended send time (coordinated-omission corrected): same
 * percentiles as the raw chart, so switching between the two compares like with like.
 */
export const RTT_CORRECTED_LINES: ChartLine[] = [
  { label: "p50", color: "#0969da", value: (p) => p.latency?.rttCorrected?.p50Ms ?? null },
  { label: "p90", color: "#1a7f37", value: (p) => p.latency?.rttCorrected?.p90Ms ?? null },
  { label: "p99", color: "#bc4c00", value: (p) => p.latency?.rttCorrected?.p99Ms ?? null },
  { label: "max", color: "#cf222e", dash: [2, 3], value: (p) => p.latency?.rttCorrected?.maxMs ?? null },
];

/** True when any second carries the corrected round trip, so the switch is worth showing. */
export function hasCorrectedRtt(points: readonly SeriesPoint[]): boolean {
  return points.some((p) => p.latency?.rttCorrected !== undefined);
}
