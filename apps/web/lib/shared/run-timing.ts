import { TERMINAL_RUN_STATUSES, type RunStatus, type RunView } from "@throng/protocol/run";

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_RUN_STATUSES.includes(status);
}

/** Seconds the plan asks for: ramp-up happens inside the duration. */
export function plannedSeconds(run: Pick<RunView, "spec">): number {
  return run.spec.load.durationSec;
}

function seconds(fromIso: string, to: number): number {
  const from = new Date(fromIso).getTime();
  return Number.isNaN(from) ? 0 : Math.max(0, (to - from) / 1000);
}

/** How long the run has generated load (or did, once ended); null before it started. */
export function elapsedSeconds(run: Pick<RunView, "startedAt" | "endedAt">, now: number = Date.now()): number | null {
  if (!run.startedAt) return null;
  const end = run.endedAt ? new Date(run.endedAt).getTime() : now;
  return seconds(run.startedAt, Number.isNaN(end) ? now : end);
}

/** Seconds left of the planned duration while the run is live; null once it ended or its capacity search did. */
export function remainingSeconds(run: RunView, now: number = Date.now()): number | null {
  if (isTerminal(run.status) || run.events.some((event) => event.kind === "search-ended")) return null;
  const elapsed = elapsedSeconds(run, now);
  if (elapsed === null) return null;
  return Math.max(0, plannedSeconds(run) - elapsed);
}

/** Duration shown in the run list: measured if it ran, else the planned one. */
export function listedDurationSeconds(run: RunView, now: number = Date.now()): number {
  return run.summary?.durationSec ?? elapsedSeconds(run, now) ?? plannedSeconds(run);
}

/**
 * Epoch seconds of the first and last points to show (each point starts its second): the planned window while
 * the run is live, cut at its end once it ended early (aborted, failed); null before start.
 */
export function chartSpan(run: RunView): readonly [number, number] | null {
  if (!run.startedAt) return null;
  const start = Math.floor(new Date(run.startedAt).getTime() / 1000);
  if (Number.isNaN(start)) return null;
  const planned = start + Math.max(0, plannedSeconds(run) - 1);
  const ended = run.endedAt && isTerminal(run.status) ? Math.floor(new Date(run.endedAt).getTime() / 1000) : Number.NaN;
  return [start, Number.isNaN(ended) ? planned : Math.max(start, Math.min(planned, ended))];
}

/** What the run page and the report hand the run's charts from the run itself: its span, events, scenario, SLOs, note. */
export function runChartInputs(run: RunView) {
  return {
    span: chartSpan(run),
    events: run.events,
    scenario: run.spec.scenario.kind,
    slos: run.spec.slos,
    note: run.note,
  };
}
