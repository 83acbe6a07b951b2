// A run's verdict in the browser's words: one badge the runs list, the run page and the report share, so none of
// them says "passed" where the API, the report and the CLI's exit code do not.
import type { RunVerdict } from "@throng/protocol/report";
import type { RunView } from "@throng/protocol/run";
import { sloText } from "./slo-text";
import { isTerminal } from "./run-timing";
import { runTone, type Tone } from "./status";

export interface VerdictBadge {
  /** "passed", "SLO failed", "incomplete", "aborted", "failed". */
  label: string;
  tone: Tone;
  /** The reasons it is not a pass, one sentence each; empty for a pass. */
  reasons: string[];
}

const LABELS = {
  passed: { label: "passed", tone: "ok" },
  breached: { label: "SLO failed", tone: "bad" },
  incomplete: { label: "incomplete", tone: "warn" },
  aborted: { label: "aborted", tone: "warn" },
  failed: { label: "failed", tone: "bad" },
} as const;

/** What an outcome reads as ("SLO failed" for breached), for the runs list's verdict filter. */
export const outcomeLabel = (outcome: keyof typeof LABELS): string => LABELS[outcome].label;
/** An outcome's badge colour, where only the outcome is known (the Schedules page's last firing). */
export const outcomeTone = (outcome: keyof typeof LABELS): Tone => LABELS[outcome].tone;

/** The verdict's badge, or null while the run has none (not ended yet). A verdict from before outcomes: its SLOs. */
export function verdictBadge(verdict: RunVerdict | null | undefined): VerdictBadge | null {
  if (!verdict) return null;
  if (!verdict.outcome)
    return verdict.slos.length ? { ...(verdict.passed ? LABELS.passed : LABELS.breached), reasons: [] } : null;
  return { ...LABELS[verdict.outcome], reasons: verdict.reasons.map(sloText) };
}

/** What a run's verdict badge says, in a title attribute: the reasons, or that the load ran as planned. */
export function verdictTitle(run: Pick<RunView, "verdict">): string {
  const badge = verdictBadge(run.verdict);
  if (!badge) return "";
  return badge.reasons.length
    ? `Not passed: ${badge.reasons.join("; ")}`
    : "The load ran as planned for its planned time and every SLO was met over enough data";
}

/**
 * The status badge's colour: a run that ended with a verdict shows its status in grey, so a green "finished"
 * never sits beside a red "SLO failed"; the verdict badge carries the judgement.
 */
export function statusTone(run: Pick<RunView, "status" | "verdict">): Tone {
  return isTerminal(run.status) && verdictBadge(run.verdict) ? "idle" : runTone(run.status);
}

/** A failed run's error in its parts ("agent a: …; agent b: …"), each in words. */
const errorParts = (run: Pick<RunView, "status" | "error">): string[] =>
  run.status === "failed" && run.error
    ? run.error
        .split("; ")
        .map((part) => sloText(part.trim()))
        .filter(Boolean)
    : [];

/**
 * Why an ended run did not pass, each reason once: the verdict's reasons, then any part of a failed run's error they do
 * not already say (its error is its shards' problems, which the verdict lists too: the page said them twice).
 */
export function notPassedReasons(run: Pick<RunView, "status" | "error" | "verdict">): string[] {
  const reasons = verdictBadge(run.verdict)?.reasons ?? [];
  return [...new Set([...reasons, ...errorParts(run)])];
}

/**
 * The reasons the report's Verdict section lists: those its one sentence at the top does not already say (a failed
 * run's sentence quotes its error, so the parts of that error are not said again beneath it).
 */
export function reportReasons(run: Pick<RunView, "status" | "error" | "verdict">): string[] {
  const said = new Set(errorParts(run));
  return (verdictBadge(run.verdict)?.reasons ?? []).filter((reason) => !said.has(reason));
}
