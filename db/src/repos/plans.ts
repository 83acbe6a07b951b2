import type { Db } from "../client";

export interface PlanRow {
  id: string;
  orgId: string;
  name: string;
  version: number;
  spec: unknown;
  createdAt: Date;
  updatedAt: Date;
}

export interface PlanVersionRow {
  version: number;
  spec: unknown;
  createdAt: Date;
}

const columns = ["id", "org_id as orgId", "name", "version", "spec", "created_at as createdAt", "updated_at as updatedAt"] as const;

/** Plans of one organisation; every method is scoped by orgId. */
export function createPlanRepo(db: Db) {
  return {
    async insert(orgId: string, plan: { id: string; name: string; spec: unknown }): Promise<PlanRow> {
      return db.transaction().execute(async (tx) => {
        const row = await tx
          .insertInto("plans")
          .values({ id: plan.id, org_id: orgId, name: plan.name, spec: JSON.stringify(plan.spec) })
          .returning(columns)
          .executeTakeFirstOrThrow();
        await tx.insertInto("plan_versions").values({ plan_id: plan.id, org_id: orgId, version: 1, spec: JSON.stringify(plan.spec) }).execute();
        return row;
      });
    },
    /** A new version of the plan; `expectedVersion` guards against overwriting someone else's edit. */
    async update(orgId: string, id: string, expectedVersion: number, plan: { name: string; spec: unknown }): Promise<PlanRow | undefined> {
      return db.transaction().execute(async (tx) => {
        const row = await tx
          .updateTable("plans")
          .set((eb) => ({ name: plan.name, spec: JSON.stringify(plan.spec), version: eb("version", "+", 1), updated_at: new Date() }))
          .where("org_id", "=", orgId)
          .where("id", "=", id)
          .where("version", "=", expectedVersion)
          .returning(columns)
          .executeTakeFirst();
        if (row) await tx.insertInto("plan_versions").values({ plan_id: id, org_id: orgId, version: row.version, spec: JSON.stringify(plan.spec) }).execute();
        return row;
      });
    },
    async versions(orgId: string, id: string): Promise<PlanVersionRow[]> {
      return db
        .selectFrom("plan_versions")
        .select(["version", "spec", "created_at as createdAt"])
        .where("org_id", "=", orgId)
        .where("plan_id", "=", id)
        .orderBy("version", "desc")
        .execute();
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
