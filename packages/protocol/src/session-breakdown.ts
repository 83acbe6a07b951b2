// A run's session broken down for its tables (issue 28 §1): each of the plan's session steps with its time and its
// failures by cause, then the session as a whole. Shared by the dashboard's table and the PDF's, read from the run's
// summary (merged HDR histograms, never averaged).
import type { LatencyStats, SessionStepStats } from "./snapshot";

/** The error kinds a session's failure counts under: its steps' own, an http step's, a login storm's (login-…). */
const SESSION_FAILURE = /^(?:login-)?(?:session-|http-)|^login-/;

const CAUSE_WORDS: Record<string, string> = {
  "session-timeout": "no expected reply in time",
  "session-rejected": "the server's reply matched failWhen",
  "session-capture": "a capture found nothing",
  "http-status": "an http step's answer had an unexpected status",
  "http-timeout": "an http step got no answer in time",
  "http-error": "an http step could not reach its server",
  closed: "the connection ended mid-step",
};

/** A failure cause in words, for a table's cell (the kind itself when it has none). */
const causeWords = (kind: string) => CAUSE_WORDS[kind.replace(/^login-/, "")] ?? kind;

export interface SessionBreakdown {
  /** The plan's session steps. */
  steps: number;
  /** Sessions that ran to their last step, and their time from the first step to the last (null: not timed). */
  time: LatencyStats | null;
  failures: { kind: string; words: string; count: number }[];
}

/** The parts of a run's summary the session's figures come from. */
interface SessionSummaryLike {
  latency?: Partial<Record<string, LatencyStats>>;
  errorsByKind?: Record<string, number>;
}

/** The session's row, or null for a plan without one; failures most first. */
export function sessionBreakdown(steps: number, summary: SessionSummaryLike): SessionBreakdown | null {
  if (steps === 0) return null;
  const failures = Object.entries(summary.errorsByKind ?? {})
    .filter(([kind, count]) => SESSION_FAILURE.test(kind) && count > 0)
    .map(([kind, count]) => ({ kind, count, words: causeWords(kind) }))
    .sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind));
  const time = summary.latency?.login;
  return { steps, time: time && time.count > 0 ? time : null, failures };
}

/** A session step as a plan gives it, read loosely: the web shows what it does in a few words. */
export type StepLike =
  | { kind: "http"; method?: string; url: string }
  | { kind: "send"; message: { body: string } }
  | { kind: "expect"; reply: Record<string, unknown>; timeoutMs?: number }
  | { kind: "wait"; ms: number };

/** A login storm's `login: true`: the built-in login's two steps (agent/src/scenarios/login-storm.ts). */
export const BUILT_IN_LOGIN: readonly StepLike[] = [
  { kind: "send", message: { body: '{"type":"login","client":{{client}},"seq":0}' } },
  { kind: "expect", reply: { json: { field: "type", equals: "login-ok" } } },
];

const clip = (text: string, length = 40) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

/** Hex bytes as text when they are printable ASCII ("2b4f4b" reads "+OK"), else as hex. */
function bytesWords(hex: string): string {
  const text = (hex.match(/../g) ?? []).map((byte) => String.fromCharCode(Number.parseInt(byte, 16))).join("");
  return /^[\x20-\x7e]+$/.test(text) ? `"${text}"` : `bytes ${hex}`;
}

/** What an expect step waits for, in a few words. */
function replyWords(reply: Record<string, unknown>): string {
  const rule = reply as {
    json?: { field: string; equals?: unknown };
    regex?: string;
    prefixHex?: string;
    bytes?: { offset: number; hex: string };
  };
  if (rule.json)
    return rule.json.equals === undefined
      ? `a reply with ${rule.json.field}`
      : `${rule.json.field} = ${String(rule.json.equals)}`;
  if (rule.regex !== undefined) return `a reply matching /${rule.regex}/`;
  if (rule.prefixHex !== undefined) return `a reply starting ${bytesWords(rule.prefixHex)}`;
  if (rule.bytes) return `${bytesWords(rule.bytes.hex)} at byte ${rule.bytes.offset}`;
  return "a reply";
}

/** What a session step does, in a few words: "sends AUTH secret", "awaits a reply starting "+OK"", "POST /match". */
export function stepWords(step: StepLike): string {
  switch (step.kind) {
    case "http": {
      const path = step.url.replace(/^https?:\/\/[^/?#]+/, "") || "/";
      return `${step.method ?? "GET"} ${clip(path)}`;
    }
    case "send":
      return `sends ${clip(step.message.body, 60)}`;
    case "expect":
      return `awaits ${clip(replyWords(step.reply), 60)}`;
    case "wait":
      return `waits ${step.ms} ms`;
  }
}

export interface SessionStepRow {
  /** The step's index in the plan's session, from 0. */
  step: number;
  words: string;
  /** The step's times when it ended well (count 0, nulls: it never did). */
  time: LatencyStats;
  failures: { kind: string; words: string; count: number }[];
}

const NOT_TIMED: LatencyStats = { count: 0, p50Ms: null, p90Ms: null, p99Ms: null, maxMs: null };

/**
 * One row per step of the plan's session, in the plan's order, from the summary's per-step figures (the agent's
 * own histogram per step, merged). Empty for a run whose agents did not time steps (stored before they did).
 */
export function sessionStepRows(
  steps: readonly StepLike[],
  summary: { sessionSteps?: Record<string, SessionStepStats> },
): SessionStepRow[] {
  if (!summary.sessionSteps) return [];
  return steps.map((step, index) => {
    const stats = summary.sessionSteps?.[String(index)];
    const { failures = {}, ...time } = stats ?? { ...NOT_TIMED, failures: {} };
    return {
      step: index,
      words: stepWords(step),
      time,
      failures: Object.entries(failures)
        .filter(([, count]) => (count ?? 0) > 0)
        .map(([kind, count]) => ({ kind, count: count ?? 0, words: causeWords(kind) }))
        .sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind)),
    };
  });
}

/** The session steps a plan's scenario runs: its own, or a login storm's `login: true` (the built-in login's two). */
export function plannedSessionSteps(scenario: { kind: string }): readonly StepLike[] {
  const { kind, session, login } = scenario as { kind: string; session?: readonly StepLike[]; login?: boolean };
  if (session?.length) return session;
  return kind === "login-storm" && login ? BUILT_IN_LOGIN : [];
}
