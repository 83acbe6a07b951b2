// A script's figures broken down for the run's tables (issue 28 §1): each of its named metrics, worst first. Read
// from the run's summary (merged HDR histograms, never averaged); the session's rows are in
// @throng/protocol/session-breakdown, shared with the PDF.
import type { LatencyStats } from "@throng/protocol/snapshot";

interface SummaryLike {
  script?: Record<string, LatencyStats>;
  scriptCounts?: Record<string, number>;
}

export interface ScriptMetricRow extends LatencyStats {
  name: string;
}

/** Each of a script's timed metrics with its percentiles, the slowest p99 first (untimed ones last, by name). */
export function scriptMetricRows(summary: SummaryLike): ScriptMetricRow[] {
  return Object.entries(summary.script ?? {})
    .map(([name, stats]) => ({ name, ...stats }))
    .sort((a, b) => (b.p99Ms ?? -1) - (a.p99Ms ?? -1) || a.name.localeCompare(b.name));
}

/** Each of a script's counters with its total, the largest first. */
export function scriptCounterRows(summary: SummaryLike): { name: string; total: number }[] {
  return Object.entries(summary.scriptCounts ?? {})
    .map(([name, total]) => ({ name, total }))
    .sort((a, b) => b.total - a.total || a.name.localeCompare(b.name));
}
