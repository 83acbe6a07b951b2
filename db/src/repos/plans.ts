import type { Db } from "../client";

export interface PlanRow {
  id: string;
  orgId: string;
  name: string;
  spec: unknown;
  createdAt: Date;
  updatedAt: Date;
}

const columns = ["id", "org_id as orgId", "name", "spec", "created_at as createdAt", "updated_at as updatedAt"] as const;

/** Plans of one organisation; every method is scoped by orgId. */
export function createPlanRepo(db: Db) {
  return {
    async insert(orgId: string, plan: { id: string; name: string; spec: unknown }): Promise<PlanRow> {
      return db
        .insertInto("plans")
        .values({ id: plan.id, org_id: orgId, name: plan.name, spec: JSON.stringify(plan.spec) })
        .returning(columns)
        .executeTakeFirstOrThrow();
    },
    async get(orgId: string, id: string): Promise<PlanRow | undefined> {
      return db.selectFrom("plans").select(columns).where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst();
    },
    async list(orgId: string, limit = 200): Promise<PlanRow[]> {
      return db.selectFrom("plans").select(columns).where("org_id", "=", orgId).orderBy("created_at", "desc").limit(limit).execute();
    },
  };
}
export type PlanRepo = ReturnType<typeof createPlanRepo>;
