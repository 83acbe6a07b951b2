import { z } from "zod";
import { VerdictOutcome } from "./report";

/** PUT /api/plans/:id/schedule body: run the plan on this cron schedule (minute, hour, day of month, month, weekday). */
export const SetPlanSchedule = z.object({
  cron: z
    .string()
    .trim()
    .regex(
      /^\S+(\s+\S+){4}$/,
      "five fields: minute hour day-of-month month weekday, e.g. 0 3 * * * for 03:00 every day",
    ),
  /** An IANA time zone the schedule is read in, e.g. Europe/Berlin. */
  timezone: z.string().trim().min(1).max(64).default("UTC"),
});
export type SetPlanSchedule = z.infer<typeof SetPlanSchedule>;

/** GET/PUT /api/plans/:id/schedule answer: the schedule and when it fires next (`schedule` null when there is none). */
export const PlanScheduleView = z.object({
  schedule: z
    .object({
      cron: z.string(),
      /** The cron in words ("at 03:00, Monday to Friday"), or `cron "…"` for shapes not put in words. */
      inWords: z.string(),
      timezone: z.string(),
      /** The next three times it fires, ISO 8601 in UTC (none while paused). */
      nextRuns: z.array(z.string()),
      /** When it was paused (POST /api/plans/:id/schedule/pause); null while it fires. */
      pausedAt: z.string().nullable(),
      updatedAt: z.string(),
      /**
       * The last time it fired: the run it started (`runId`), or why none started (`error`: no agent online, the plan
       * archived, ...). Null until it first fires.
       */
      lastAttempt: z
        .object({ at: z.string(), runId: z.string().uuid().nullable(), error: z.string().nullable() })
        .nullable(),
    })
    .nullable(),
});
export type PlanScheduleView = z.infer<typeof PlanScheduleView>;

/** The run a schedule's last firing started, as it stands now: its status and, once it ended, its verdict's outcome. */
export const ScheduledRunState = z.object({ status: z.string(), outcome: VerdictOutcome.nullable() });
export type ScheduledRunState = z.infer<typeof ScheduledRunState>;

/** One schedule of the organisation on GET /api/schedules: its plan, when it fires next and what it did last. */
export const OrgScheduleView = z.object({
  planId: z.string().uuid(),
  planName: z.string(),
  /** An archived plan's schedule fires, and each firing is refused: the page says so. */
  planArchived: z.boolean(),
  cron: z.string(),
  inWords: z.string(),
  timezone: z.string(),
  pausedAt: z.string().nullable(),
  /** The next time it fires, ISO 8601 in UTC; null while paused. */
  nextRun: z.string().nullable(),
  lastAttempt: z
    .object({
      at: z.string(),
      runId: z.string().uuid().nullable(),
      error: z.string().nullable(),
      run: ScheduledRunState.nullable(),
    })
    .nullable(),
  updatedAt: z.string(),
});
export type OrgScheduleView = z.infer<typeof OrgScheduleView>;

/** GET /api/schedules answer: every schedule of the organisation, by plan name. */
export const OrgSchedulesView = z.object({ schedules: z.array(OrgScheduleView) });
export type OrgSchedulesView = z.infer<typeof OrgSchedulesView>;

/** A plan's next scheduled run on the Plans list (PlanView.nextScheduledRun): when, in which zone, or paused. */
export const NextScheduledRun = z.object({
  /** ISO 8601 in UTC; null while the schedule is paused. */
  at: z.string().nullable(),
  timezone: z.string(),
  paused: z.boolean(),
});
export type NextScheduledRun = z.infer<typeof NextScheduledRun>;
