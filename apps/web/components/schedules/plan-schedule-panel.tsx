"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent, type ReactNode } from "react";
import type { PlanScheduleView } from "@throng/protocol/plan-schedule";
import { useApiQuery } from "../../hooks/use-api-query";
import { api } from "../../lib/shared/api";
import { ApiError, errorMessage } from "../../lib/shared/api-client";
import { formatDateTime, formatDateTimeIn } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { fieldBinder, TextField } from "../ui/text-field";
import { ErrorAlert } from "../ui/error-alert";

const BROWSER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

type Attempt = NonNullable<NonNullable<PlanScheduleView["schedule"]>["lastAttempt"]>;

/** What the schedule did when it last fired: the run it started, or why none started. */
function LastAttempt({ attempt }: { attempt: Attempt }) {
  const when = formatDateTime(attempt.at);
  if (attempt.runId) {
    return (
      <p className="muted" data-testid="plan-schedule-last" data-outcome="started">
        Last fired {when}: started <Link href={`/runs/${attempt.runId}`}>a run</Link>.
      </p>
    );
  }
  return (
    <p className="alert" role="status" data-testid="plan-schedule-last" data-outcome="not-started">
      Last fired {when}: no run started. {attempt.error}
    </p>
  );
}

/** Pause, Resume or Stop beside the form's submit button; disabled while a change is out. */
function SecondaryButton({
  disabled,
  onClick,
  testId,
  children,
}: {
  disabled: boolean;
  onClick: () => void;
  testId: string;
  children: ReactNode;
}) {
  return (
    <button className="button" type="button" disabled={disabled} onClick={onClick} data-testid={testId}>
      {children}
    </button>
  );
}

/** The plan's cron schedule: when it runs next, and a form to set, change or remove it (runs start as you). */
export function PlanSchedulePanel({ planId, canSchedule }: { planId: string; canSchedule: boolean }) {
  const queryClient = useQueryClient();
  const current = useApiQuery(queryKeys.planSchedule(planId), (signal) => api.getPlanSchedule(planId, signal));
  const schedule = current.data?.schedule ?? null;
  const [cron, setCron] = useState<string | null>(null);
  const [timezone, setTimezone] = useState<string | null>(null);
  // Setting or removing the schedule: the form goes back to what is saved once the schedule is read again.
  const change = useMutation({
    mutationFn: (action: () => Promise<unknown>) => action(),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.planSchedule(planId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.schedules }),
        queryClient.invalidateQueries({ queryKey: queryKeys.planLists }),
      ]);
      setCron(null);
      setTimezone(null);
    },
  });
  const pending = change.isPending;
  const fields = change.error instanceof ApiError ? change.error.fields : [];
  const fieldErrors: Record<string, string> = Object.fromEntries(fields.map((field) => [field.path, field.message]));
  const failure = change.isError && fields.length === 0 ? errorMessage(change.error) : null;
  const act = (action: () => Promise<unknown>) => change.mutate(action);

  const cronValue = cron ?? schedule?.cron ?? "";
  const zoneValue = timezone ?? schedule?.timezone ?? BROWSER_ZONE;
  const setters = { cron: setCron, timezone: setTimezone };
  const field = fieldBinder({ cron: cronValue, timezone: zoneValue }, (key) => setters[key], fieldErrors, "schedule-");
  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    act(() => api.setPlanSchedule(planId, { cron: cronValue.trim(), timezone: zoneValue.trim() }));
  };

  return (
    <section className="panel" aria-labelledby="plan-schedule-title" data-testid="plan-schedule">
      <h2 id="plan-schedule-title">Schedule</h2>
      <ErrorAlert error={current.error} />
      {!current.data && !current.error && <p className="loading">Loading the schedule…</p>}
      {current.data && (
        <p className="muted" data-testid="plan-schedule-state">
          {!schedule
            ? "Not scheduled: the plan runs when someone starts it."
            : schedule.pausedAt
              ? `Paused since ${formatDateTime(schedule.pausedAt)}: ${schedule.inWords} (${schedule.timezone}) once resumed.`
              : // The times it fires in the schedule's own zone, named: 03:00 Europe/Berlin must not read "2:00:00 AM" in a browser in London.
                `Runs ${schedule.inWords} (${schedule.timezone}). Next: ${schedule.nextRuns.map((at) => formatDateTimeIn(at, schedule.timezone)).join("; ")}.`}
        </p>
      )}
      {schedule?.lastAttempt && <LastAttempt attempt={schedule.lastAttempt} />}
      {canSchedule && current.data && (
        <form className="settings-form" onSubmit={save} noValidate>
          <div className="form-grid">
            <TextField
              {...field("cron")}
              label="Cron schedule"
              hint="minute hour day-of-month month weekday, e.g. 0 3 * * 1-5 for 03:00 on weekdays."
            />
            <TextField {...field("timezone")} label="Time zone" hint="An IANA name, e.g. UTC or Europe/Berlin." />
          </div>
          <ErrorAlert error={failure} />
          <div className="toolbar">
            <button className="button primary" type="submit" disabled={pending} data-testid="save-schedule">
              {schedule ? "Change schedule" : "Schedule runs"}
            </button>
            {schedule && (
              <>
                <SecondaryButton
                  disabled={pending}
                  onClick={() =>
                    act(() => (schedule.pausedAt ? api.resumePlanSchedule(planId) : api.pausePlanSchedule(planId)))
                  }
                  testId="pause-schedule"
                >
                  {schedule.pausedAt ? "Resume" : "Pause"}
                </SecondaryButton>
                <SecondaryButton
                  disabled={pending}
                  onClick={() => act(() => api.removePlanSchedule(planId))}
                  testId="remove-schedule"
                >
                  Stop scheduling
                </SecondaryButton>
              </>
            )}
          </div>
        </form>
      )}
    </section>
  );
}
