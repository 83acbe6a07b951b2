import { sql } from "kysely";
import type { PlanSpec } from "@throng/protocol/plan";
import type { Db } from "../client";
import { readStoredPlan } from "../stored-plan";
import { countOrgRows, selectOrgRow, selectOrgRows, updateOrgRow } from "./org-rows";

export interface PlanRow {
  id: string;
  orgId: string;
  name: string;
  version: number;
  spec: PlanSpec;
  createdAt: Date;
  updatedAt: Date;
  archivedAt: Date | null;
  /** The run every later run is compared with; null when none is pinned. */
  baselineRunId: string | null;
}

/** A plan's most recent run that ended, for the plan list. */
export interface LastRunRow {
  planId: string;
  id: string;
  status: string;
  outcome: string | null;
  endedAt: Date | null;
}

/** Which plans a list holds: the active ones (the default), the archived ones, or both. */
export type PlanShelf = "active" | "archived" | "all";

export interface PlanVersionRow {
  version: number;
  spec: PlanSpec;
  createdAt: Date;
}

const columns = [
  "id",
  "org_id as orgId",
  "name",
  "version",
  "spec",
  "created_at as createdAt",
  "updated_at as updatedAt",
  "archived_at as archivedAt",
  "baseline_run_id as baselineRunId",
] as const;

/** A row as core sees it: its spec parsed once, here. */
function planOf<R extends { id: string; version: number; spec: unknown }>(row: R): R & { spec: PlanSpec } {
  return { ...row, spec: readStoredPlan(row.spec, `plan ${row.id} (version ${row.version})`) };
}
function planOrUndefined<R extends { id: string; version: number; spec: unknown }>(
  row: R | undefined,
): (R & { spec: PlanSpec }) | undefined {
  return row && planOf(row);
}

/** Plans of one organisation; every method is scoped by orgId. */
export function createPlanRepo(db: Db) {
  /** Sets one of the plan's own columns (not a new version); undefined when the plan is not in this organisation. */
  const setColumn = async (
    orgId: string,
    id: string,
    values: { archived_at: Date | null } | { baseline_run_id: string | null },
  ): Promise<PlanRow | undefined> =>
    planOrUndefined(await updateOrgRow(db, "plans", orgId, "id", id).set(values).returning(columns).executeTakeFirst());

  return {
    async insert(orgId: string, plan: { id: string; name: string; spec: PlanSpec }): Promise<PlanRow> {
      return db.transaction().execute(async (tx) => {
        const row = await tx
          .insertInto("plans")
          .values({ id: plan.id, org_id: orgId, name: plan.name, spec: JSON.stringify(plan.spec) })
          .returning(columns)
          .executeTakeFirstOrThrow();
        await tx
          .insertInto("plan_versions")
          .values({ plan_id: plan.id, org_id: orgId, version: 1, spec: JSON.stringify(plan.spec) })
          .execute();
        return planOf(row);
      });
    },
    /** A new version of the plan; `expectedVersion` guards against overwriting someone else's edit. */
    async update(
      orgId: string,
      id: string,
      expectedVersion: number,
      plan: { name: string; spec: PlanSpec },
    ): Promise<PlanRow | undefined> {
      return db.transaction().execute(async (tx) => {
        const row = await tx
          .updateTable("plans")
          .set((eb) => ({
            name: plan.name,
            spec: JSON.stringify(plan.spec),
            version: eb("version", "+", 1),
            updated_at: new Date(),
          }))
          .where("org_id", "=", orgId)
          .where("id", "=", id)
          .where("version", "=", expectedVersion)
          .returning(columns)
          .executeTakeFirst();
        if (row)
          await tx
            .insertInto("plan_versions")
            .values({ plan_id: id, org_id: orgId, version: row.version, spec: JSON.stringify(plan.spec) })
            .execute();
        return planOrUndefined(row);
      });
    },
    async versions(orgId: string, id: string): Promise<PlanVersionRow[]> {
      const rows = await selectOrgRows(db, "plan_versions", orgId)
        .select(["version", "spec", "created_at as createdAt"])
        .where("plan_id", "=", id)
        .orderBy("version", "desc")
        .execute();
      return rows.map((row) => ({ ...row, spec: readStoredPlan(row.spec, `plan ${id} (version ${row.version})`) }));
    },
    async get(orgId: string, id: string): Promise<PlanRow | undefined> {
      return planOrUndefined(await selectOrgRow(db, "plans", orgId, "id", id).select(columns).executeTakeFirst());
    },
    async list(orgId: string, shelf: PlanShelf = "active", limit = 200): Promise<PlanRow[]> {
      let query = selectOrgRows(db, "plans", orgId).select(columns);
      if (shelf === "active") query = query.where("archived_at", "is", null);
      if (shelf === "archived") query = query.where("archived_at", "is not", null);
      return (await query.orderBy("created_at", "desc").limit(limit).execute()).map(planOf);
    },
    /** The active plan of that name (the most recently saved, should two share it). */
    async findActiveByName(orgId: string, name: string): Promise<PlanRow | undefined> {
      return planOrUndefined(
        await selectOrgRows(db, "plans", orgId)
          .select(columns)
          .where("name", "=", name)
          .where("archived_at", "is", null)
          .orderBy("updated_at", "desc")
          .limit(1)
          .executeTakeFirst(),
      );
    },
    /** Archives (a date) or restores (null) a plan; undefined when it is not in this organisation. */
    async setArchived(orgId: string, id: string, archivedAt: Date | null): Promise<PlanRow | undefined> {
      return setColumn(orgId, id, { archived_at: archivedAt });
    },
    /** Each plan's most recent run that ended (finished, aborted or failed), newest by creation; plans without one are left out. */
    async lastRuns(orgId: string, planIds: readonly string[]): Promise<LastRunRow[]> {
      if (planIds.length === 0) return [];
      return selectOrgRows(db, "runs", orgId)
        .distinctOn("plan_id")
        .select([
          "plan_id as planId",
          "id",
          "status",
          sql<string | null>`verdict ->> 'outcome'`.as("outcome"),
          "ended_at as endedAt",
        ])
        .where("plan_id", "in", planIds)
        .where("status", "in", ["finished", "aborted", "failed"])
        .orderBy("plan_id")
        .orderBy("created_at", "desc")
        .execute();
    },
    /** Pins (a run id) or unpins (null) the plan's baseline; undefined when the plan is not in this organisation. */
    async setBaseline(orgId: string, id: string, runId: string | null): Promise<PlanRow | undefined> {
      return setColumn(orgId, id, { baseline_run_id: runId });
    },
    /** Deletes a plan that has no runs (its versions go with it); false when it has runs or is not in this organisation. */
    async deleteWithoutRuns(orgId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom("plans")
        .where("org_id", "=", orgId)
        .where("id", "=", id)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom("runs").select("runs.id").whereRef("runs.plan_id", "=", "plans.id"))),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    async countRuns(orgId: string, id: string): Promise<number> {
      return countOrgRows(db, "runs", orgId, "plan_id", id);
    },
  };
}
export type PlanRepo = ReturnType<typeof createPlanRepo>;
