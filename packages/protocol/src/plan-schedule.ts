import { z } from "zod";

/** PUT /api/plans/:id/schedule body: run the plan on this cron schedule (minute, hour, day of month, month, weekday). */
export const SetPlanSchedule = z.object({
  cron: z
    .string()
    .trim()
    .regex(/^\S+(\s+\S+){4}$/, "five fields: minute hour day-of-month month weekday, e.g. 0 3 * * * for 03:00 every day"),
  /** An IANA time zone the schedule is read in, e.g. Europe/Berlin. */
  timezone: z.string().trim().min(1).max(64).default("UTC"),
});
export type SetPlanSchedule = z.infer<typeof SetPlanSchedule>;

/** GET/PUT /api/plans/:id/schedule answer: the schedule and when it fires next (`schedule` null when there is none). */
export const PlanScheduleView = z.object({
  schedule: z
    .object({
      cron: z.string(),
      timezone: z.string(),
      /** The next three times it fires, ISO 8601 in UTC. */
      nextRuns: z.array(z.string()),
      updatedAt: z.string(),
      /**
       * The last time it fired: the run it started (`runId`), or why none started (`error`: no agent online, the plan
       * archived, ...). Null until it first fires.
       */
      lastAttempt: z.object({ at: z.string(), runId: z.string().uuid().nullable(), error: z.string().nullable() }).nullable(),
    })
    .nullable(),
});
export type PlanScheduleView = z.infer<typeof PlanScheduleView>;
