import type { RunNotification, NotificationKind } from "@throng/protocol/notifications";
import type { RunView } from "@throng/protocol/run";

/** A run that did not pass: failed, aborted, or ended with a verdict that is not a pass. */
export const runDidNotPass = (run: Pick<RunView, "status" | "verdict">) =>
  run.status !== "finished" || run.verdict?.passed !== true;

/** One line a person reads in Slack or a chat bridge: the plan, how it ended, why, and the link. */
export function notificationText(run: RunView | null, runUrl: string): string {
  if (!run) return "Throng test notification: this channel is set up and receives run notifications.";
  const outcome =
    run.status === "finished"
      ? run.verdict?.passed
        ? "passed"
        : `finished, ${run.verdict?.outcome ?? "not passed"}`
      : run.status;
  const why =
    run.verdict && !run.verdict.passed && run.verdict.reasons[0]
      ? `: ${run.verdict.reasons[0]}`
      : run.error
        ? `: ${run.error}`
        : "";
  return `Run of "${run.planName}" ${outcome}${why}. ${runUrl}`;
}

/** A plan's scheduled run that did not start: which plan, why, and the plan's page (where the schedule is). */
export interface ScheduleFailure {
  planId: string;
  planName: string;
  reason: string;
  planUrl: string;
}

/** The same for a scheduled run that never started: our JSON for a webhook, `{ text }` for Slack. */
export function scheduleFailedBody(
  kind: NotificationKind,
  failure: ScheduleFailure,
): RunNotification | { text: string } {
  const text = `Scheduled run of "${failure.planName}" did not start: ${failure.reason}. ${failure.planUrl}`;
  if (kind === "slack") return { text };
  return {
    event: "schedule-failed",
    run: null,
    schedule: { planId: failure.planId, planName: failure.planName, reason: failure.reason, url: failure.planUrl },
    text,
  };
}

/** What a channel receives: our JSON for a webhook, Slack's incoming-webhook `{ text }` for Slack. */
export function notificationBody(
  kind: NotificationKind,
  run: RunView | null,
  runUrl: string,
): RunNotification | { text: string } {
  const text = notificationText(run, runUrl);
  if (kind === "slack") return { text };
  return {
    event: run ? "run-ended" : "test",
    run: run
      ? {
          id: run.id,
          planName: run.planName,
          status: run.status,
          outcome: run.verdict?.outcome ?? null,
          error: run.error,
          url: runUrl,
        }
      : null,
    text,
  };
}
