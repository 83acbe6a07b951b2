import type { Db } from "../client";

export interface PlanScheduleRow {
  planId: string;
  orgId: string;
  cron: string;
  timezone: string;
  createdBy: string;
  updatedAt: Date;
}

const columns = ["plan_id as planId", "org_id as orgId", "cron", "timezone", "created_by as createdBy", "updated_at as updatedAt"] as const;

/** A plan's cron schedule (at most one per plan); every method is scoped by orgId. */
export function createPlanScheduleRepo(db: Db) {
  return {
    async get(orgId: string, planId: string): Promise<PlanScheduleRow | undefined> {
      return db.selectFrom("plan_schedules").select(columns).where("org_id", "=", orgId).where("plan_id", "=", planId).executeTakeFirst();
    },
    async upsert(orgId: string, schedule: { planId: string; cron: string; timezone: string; createdBy: string }): Promise<PlanScheduleRow> {
      return db
        .insertInto("plan_schedules")
        .values({ plan_id: schedule.planId, org_id: orgId, cron: schedule.cron, timezone: schedule.timezone, created_by: schedule.createdBy })
        .onConflict((oc) => oc.column("plan_id").doUpdateSet({ cron: schedule.cron, timezone: schedule.timezone, created_by: schedule.createdBy, updated_at: new Date() }))
        .returning(columns)
        .executeTakeFirstOrThrow();
    },
    async remove(orgId: string, planId: string): Promise<boolean> {
      const result = await db.deleteFrom("plan_schedules").where("org_id", "=", orgId).where("plan_id", "=", planId).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}
export type PlanScheduleRepo = ReturnType<typeof createPlanScheduleRepo>;
