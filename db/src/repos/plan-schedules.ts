import { sql } from "kysely";
import type { Db } from "../client";
import { deleteOrgRow, selectOrgRow, updateOrgRow } from "./org-rows";

export interface PlanScheduleRow {
  planId: string;
  orgId: string;
  cron: string;
  timezone: string;
  createdBy: string;
  updatedAt: Date;
  /** The last time it fired: the run it started, or why none started (null until it first fires). */
  lastAttemptAt: Date | null;
  lastRunId: string | null;
  lastError: string | null;
  /** Set while paused: the schedule keeps its cron and zone but does not fire. */
  pausedAt: Date | null;
  pausedBy: string | null;
}

/** A schedule of the organisation with its plan's name and the status and verdict of the run it last started. */
export interface OrgScheduleRow extends PlanScheduleRow {
  planName: string;
  planArchivedAt: Date | null;
  lastRunStatus: string | null;
  lastRunOutcome: string | null;
}

const columns = [
  "plan_id as planId",
  "org_id as orgId",
  "cron",
  "timezone",
  "created_by as createdBy",
  "updated_at as updatedAt",
  "last_attempt_at as lastAttemptAt",
  "last_run_id as lastRunId",
  "last_error as lastError",
  "paused_at as pausedAt",
  "paused_by as pausedBy",
] as const;

/** A plan's cron schedule (at most one per plan); every method is scoped by orgId. */
export function createPlanScheduleRepo(db: Db) {
  return {
    async get(orgId: string, planId: string): Promise<PlanScheduleRow | undefined> {
      return selectOrgRow(db, "plan_schedules", orgId, "plan_id", planId).select(columns).executeTakeFirst();
    },
    async upsert(
      orgId: string,
      schedule: { planId: string; cron: string; timezone: string; createdBy: string },
    ): Promise<PlanScheduleRow> {
      return db
        .insertInto("plan_schedules")
        .values({
          plan_id: schedule.planId,
          org_id: orgId,
          cron: schedule.cron,
          timezone: schedule.timezone,
          created_by: schedule.createdBy,
        })
        .onConflict((oc) =>
          oc.column("plan_id").doUpdateSet({
            cron: schedule.cron,
            timezone: schedule.timezone,
            created_by: schedule.createdBy,
            updated_at: new Date(),
          }),
        )
        .returning(columns)
        .executeTakeFirstOrThrow();
    },
    /** Every schedule of the organisation, by plan name, with the plan and the run it last started. */
    async listOrg(orgId: string): Promise<OrgScheduleRow[]> {
      return db
        .selectFrom("plan_schedules as s")
        .innerJoin("plans as p", (join) => join.onRef("p.id", "=", "s.plan_id").onRef("p.org_id", "=", "s.org_id"))
        .leftJoin("runs as r", (join) => join.onRef("r.id", "=", "s.last_run_id").onRef("r.org_id", "=", "s.org_id"))
        .select(columns.map((column) => `s.${column}` as const))
        .select([
          "p.name as planName",
          "p.archived_at as planArchivedAt",
          "r.status as lastRunStatus",
          sql<string | null>`r.verdict ->> 'outcome'`.as("lastRunOutcome"),
        ])
        .where("s.org_id", "=", orgId)
        .orderBy("p.name")
        .orderBy("s.plan_id")
        .execute();
    },
    /** Pauses (a user id) or resumes (null) the schedule; undefined when the plan has none in this organisation. */
    async setPaused(orgId: string, planId: string, pausedBy: string | null): Promise<PlanScheduleRow | undefined> {
      return updateOrgRow(db, "plan_schedules", orgId, "plan_id", planId)
        .set({ paused_at: pausedBy ? new Date() : null, paused_by: pausedBy })
        .returning(columns)
        .executeTakeFirst();
    },
    /** What the latest firing did: started `runId`, or none, for `error`. */
    async recordAttempt(
      orgId: string,
      planId: string,
      attempt: { at: Date; runId: string | null; error: string | null },
    ): Promise<void> {
      await updateOrgRow(db, "plan_schedules", orgId, "plan_id", planId)
        .set({ last_attempt_at: attempt.at, last_run_id: attempt.runId, last_error: attempt.error })
        .execute();
    },
    async remove(orgId: string, planId: string): Promise<boolean> {
      return deleteOrgRow(db, "plan_schedules", orgId, "plan_id", planId);
    },
  };
}
export type PlanScheduleRepo = ReturnType<typeof createPlanScheduleRepo>;
