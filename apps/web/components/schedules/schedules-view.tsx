"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import type { OrgScheduleView } from "@throng/protocol/plan-schedule";
import { useApiQuery } from "../../hooks/use-api-query";
import { api } from "../../lib/shared/api";
import { errorMessage } from "../../lib/shared/api-client";
import { formatDateTime, formatDateTimeIn } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { lastFiring, nextFiringText } from "../../lib/schedules/schedules";
import { can } from "../../lib/shared/settings-permissions";
import { DataTable } from "../ui/data-table";
import { useMe } from "../shell/session-gate";
import { StatusBadge } from "../ui/status-badge";
import { ErrorAlert } from "../ui/error-alert";

/** The last firing's cell: its run's verdict as a link, or why no run started. */
function LastFiringCell({ schedule }: { schedule: OrgScheduleView }) {
  const last = lastFiring(schedule.lastAttempt);
  return (
    <td data-testid="schedule-last" data-outcome={last.label}>
      {last.runId ? (
        <Link
          href={`/runs/${last.runId}/report`}
          aria-label={`Run of ${formatDateTime(schedule.lastAttempt!.at)}: ${last.label}`}
        >
          <StatusBadge status={last.label} tone={last.tone} />
        </Link>
      ) : (
        <StatusBadge status={last.label} tone={last.tone} />
      )}
      {schedule.lastAttempt && (
        <div className="muted small">{formatDateTimeIn(schedule.lastAttempt.at, schedule.timezone)}</div>
      )}
      {last.detail && <div className="small">{last.detail}</div>}
    </td>
  );
}

/** Every schedule of the organisation: what runs when, what the last firing did, and pause or resume for those allowed. */
export function SchedulesView() {
  const { role } = useMe();
  const queryClient = useQueryClient();
  const schedules = useApiQuery(queryKeys.schedules, (signal) => api.listSchedules(signal));
  const toggle = useMutation({
    mutationFn: ({ planId, pause }: { planId: string; pause: boolean }) =>
      pause ? api.pausePlanSchedule(planId) : api.resumePlanSchedule(planId),
    onSuccess: async (_answer, { planId }) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.schedules }),
        queryClient.invalidateQueries({ queryKey: queryKeys.planLists }),
        queryClient.invalidateQueries({ queryKey: queryKeys.planSchedule(planId) }),
      ]);
    },
  });
  const mayChange = can(role, "run.start");
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Schedules</h1>
          <p>
            Every plan that runs on its own: when it runs next, and what its last run found. Times are in each
            schedule’s own zone.
          </p>
        </div>
      </div>
      <ErrorAlert error={schedules.error} />
      {toggle.isError && (
        <p className="alert" role="alert" data-testid="schedule-toggle-error">
          {errorMessage(toggle.error)}
        </p>
      )}
      {!schedules.data && !schedules.error && <p className="loading">Loading schedules…</p>}
      {schedules.data?.length === 0 && (
        <div className="empty" data-testid="schedules-empty">
          <strong>No schedules yet.</strong>
          <p>
            A plan runs on a schedule from its page (Schedule). Open one of your <Link href="/plans">plans</Link> to set
            one.
          </p>
        </div>
      )}
      {schedules.data && schedules.data.length > 0 && (
        <DataTable
          caption="Schedules of this organisation"
          columns={["Plan", "When", "Time zone", "Next run", "Last run", "State", ""]}
          testId="schedule-list"
        >
          {schedules.data.map((schedule) => (
            <tr
              key={schedule.planId}
              data-testid="schedule-row"
              data-plan-id={schedule.planId}
              data-paused={schedule.pausedAt ? "true" : "false"}
            >
              <td>
                {/* As on the Plans list: the plan's name in its own case, not a header cell's capitals. */}
                <Link href={`/plans/${schedule.planId}`}>
                  <strong>{schedule.planName}</strong>
                </Link>
                {schedule.planArchived && <div className="muted small">archived: each firing is refused</div>}
              </td>
              <td data-testid="schedule-when">
                {schedule.inWords}
                <div className="muted small">
                  <code>{schedule.cron}</code>
                </div>
              </td>
              <td>{schedule.timezone}</td>
              <td data-testid="schedule-next">
                {nextFiringText({
                  at: schedule.nextRun,
                  timezone: schedule.timezone,
                  paused: schedule.pausedAt !== null,
                })}
              </td>
              <LastFiringCell schedule={schedule} />
              <td>
                <StatusBadge
                  status={schedule.pausedAt ? "paused" : "enabled"}
                  tone={schedule.pausedAt ? "warn" : "ok"}
                  testId="schedule-state"
                />
                {schedule.pausedAt && <div className="muted small">since {formatDateTime(schedule.pausedAt)}</div>}
              </td>
              <td className="actions">
                {mayChange && (
                  <button
                    className="button small"
                    type="button"
                    disabled={toggle.isPending}
                    onClick={() => toggle.mutate({ planId: schedule.planId, pause: schedule.pausedAt === null })}
                    aria-label={`${schedule.pausedAt ? "Resume" : "Pause"} the schedule of ${schedule.planName}`}
                    data-testid="schedule-toggle"
                  >
                    {schedule.pausedAt ? "Resume" : "Pause"}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
