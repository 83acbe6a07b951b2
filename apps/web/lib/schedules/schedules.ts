// What the Schedules page and the Plans list say about a schedule: when it fires next (in its own zone, named, so
// 03:00 Europe/Berlin never reads "2:00 AM" in London), and what its last firing did (the run and its verdict, or why
// none started). Pure, so the words are tested without a browser.
import type { NextScheduledRun, OrgScheduleView } from "@throng/protocol/plan-schedule";
import { formatDateTimeIn, formatUntil } from "../shared/format";
import type { Tone } from "../shared/status";
import { outcomeLabel, outcomeTone } from "../shared/verdict";

/** The next firing: "in 3 h · Nov 28, 2026, 3:00:00 AM GMT+1", "paused", or "—" when it never fires again. */
export function nextFiringText(
  schedule: Pick<NextScheduledRun, "at" | "timezone" | "paused">,
  now: number = Date.now(),
): string {
  if (schedule.paused) return "paused";
  if (!schedule.at) return "—";
  return `${formatUntil(schedule.at, now)} · ${formatDateTimeIn(schedule.at, schedule.timezone)}`;
}

export interface LastFiring {
  /** "SLO failed", "running", "not started", "never fired". */
  label: string;
  tone: Tone;
  /** The run it started, to link; null when none. */
  runId: string | null;
  /** Why no run started, in the API's words. */
  detail: string | null;
}

/** What the last firing did: its run's verdict (or status while it has none), why none started, or that it never fired. */
export function lastFiring(attempt: OrgScheduleView["lastAttempt"]): LastFiring {
  if (!attempt) return { label: "never fired", tone: "idle", runId: null, detail: null };
  if (!attempt.runId) return { label: "not started", tone: "bad", runId: null, detail: attempt.error };
  const outcome = attempt.run?.outcome ?? null;
  if (outcome) return { label: outcomeLabel(outcome), tone: outcomeTone(outcome), runId: attempt.runId, detail: null };
  // The run was deleted (its row is gone) or has not ended: its status, never a verdict it does not have.
  return {
    label: attempt.run?.status ?? "run deleted",
    tone: "idle",
    runId: attempt.run ? attempt.runId : null,
    detail: null,
  };
}
