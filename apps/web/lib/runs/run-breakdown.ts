// The run's figures broken down for its tables (issue 28 §1): the clients' session, each of a script's named
// metrics, worst first. Read from the run's summary (merged HDR histograms, never averaged).
import type { LatencyStats } from "@throng/protocol/snapshot";

/** The error kinds a session's failure counts under: its steps' own, an http step's, a login storm's (login-…). */
const SESSION_FAILURE = /^(?:login-)?(?:session-|http-)|^login-/;

const CAUSE_WORDS: Record<string, string> = {
  "session-timeout": "no expected reply in time",
  "session-rejected": "the server's reply matched failWhen",
  "session-capture": "a capture found nothing",
  "http-status": "an http step's answer had an unexpected status",
  "http-timeout": "an http step got no answer in time",
  "http-error": "an http step could not reach its server",
};

export interface SessionBreakdown {
  /** The plan's session steps (the table's one row is the session as a whole: steps are not timed one by one). */
  steps: number;
  /** Sessions that ran to their last step, and their time from the first step to the last (null: not timed). */
  time: LatencyStats | null;
  failures: { kind: string; words: string; count: number }[];
}

interface SummaryLike {
  latency?: Partial<Record<string, LatencyStats>>;
  errorsByKind?: Record<string, number>;
  script?: Record<string, LatencyStats>;
  scriptCounts?: Record<string, number>;
}

/** The session's row, or null for a plan without one; failures most first. */
export function sessionBreakdown(steps: number, summary: SummaryLike): SessionBreakdown | null {
  if (steps === 0) return null;
  const failures = Object.entries(summary.errorsByKind ?? {})
    .filter(([kind, count]) => SESSION_FAILURE.test(kind) && count > 0)
    .map(([kind, count]) => ({ kind, count, words: CAUSE_WORDS[kind.replace(/^login-/, "")] ?? kind }))
    .sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind));
  const time = summary.latency?.login;
  return { steps, time: time && time.count > 0 ? time : null, failures };
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
