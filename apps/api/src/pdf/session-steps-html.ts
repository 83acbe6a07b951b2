// The PDF's session table (issue 28 §1), with the run page's and the report's columns: each of the plan's session
// steps with what it does, how many ended well, its p50/p90/p99/max and its failures by cause, then the whole session.
import type { RunView } from "@throng/protocol/run";
import type { LatencyStats } from "@throng/protocol/snapshot";
import { plannedSessionSteps, sessionBreakdown, sessionStepRows } from "@throng/protocol/session-breakdown";
import { escapeHtml, table } from "./html-table";

/** The few formats the table needs, in the reader's locale (report-html.ts's PdfFormats). */
interface StepFormats {
  integer(n: number): string;
  ms(n: number | null | undefined): string;
}

const failuresText = (f: StepFormats, failures: readonly { words: string; count: number }[]) =>
  failures.length === 0
    ? "none"
    : failures.map((failure) => `${f.integer(failure.count)} × ${failure.words}`).join("; ");

const percentiles = (f: StepFormats, time: LatencyStats | null) => [
  f.ms(time?.p50Ms),
  f.ms(time?.p90Ms),
  f.ms(time?.p99Ms),
  f.ms(time?.maxMs),
];

/** The session's section, or "" for a run whose plan has no session (or no summary yet). */
export function sessionStepsHtml(f: StepFormats, run: RunView): string {
  const { summary } = run;
  if (!summary) return "";
  const steps = plannedSessionSteps(run.spec.scenario);
  const session = sessionBreakdown(steps.length, summary);
  if (!session) return "";
  const rows = sessionStepRows(steps, summary).map((row) => [
    `${row.step} ${row.words}`,
    f.integer(row.time.count),
    ...percentiles(f, row.time),
    failuresText(f, row.failures),
  ]);
  const whole = [
    "Whole session",
    session.time ? f.integer(session.time.count) : "not timed",
    ...percentiles(f, session.time),
    failuresText(f, session.failures),
  ];
  const note =
    rows.length > 0
      ? "A step's time: an expect step's from the send before it to the reply it waited for, an http step's from its request to the answer, a send's to its send. The whole session's runs from its first step to its last."
      : "Times are the session's whole, first step to last: this run's agents did not time each step.";
  return `<h2>Session (${session.steps} ${session.steps === 1 ? "step" : "steps"})</h2>${table(
    ["Step", "Completed", "p50", "p90", "p99", "Max", "Failures by cause"],
    [...rows, whole],
  )}<p class="muted">${escapeHtml(note)}</p>`;
}
