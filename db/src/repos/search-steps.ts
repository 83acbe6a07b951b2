import type { Db } from "../client";

export interface SearchStepRow {
  step: number;
  clients: number;
  phase: "coarse" | "settle" | "fine";
  startAt: Date;
  /** Null until the step's seconds are judged. */
  held: boolean | null;
}

/** An automatic capacity search's decided levels, one row per step, scoped by orgId. */
export function createSearchStepRepo(db: Db) {
  return {
    async list(orgId: string, runId: string): Promise<SearchStepRow[]> {
      const rows = await db
        .selectFrom("run_search_steps")
        .select(["step", "clients", "phase", "start_at as startAt", "held"])
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .orderBy("step")
        .execute();
      return rows.map((r) => ({ ...r, phase: r.phase as SearchStepRow["phase"] }));
    },
    /** Stores a decided level; false when that step was already decided (a job that ran twice). */
    async insert(orgId: string, runId: string, step: Omit<SearchStepRow, "held">): Promise<boolean> {
      const result = await db
        .insertInto("run_search_steps")
        .values({
          run_id: runId,
          org_id: orgId,
          step: step.step,
          clients: step.clients,
          phase: step.phase,
          start_at: step.startAt,
        })
        .onConflict((oc) => oc.columns(["run_id", "step"]).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    /** Records a step's verdict once; a second judgement of the same step keeps the first. */
    async judge(orgId: string, runId: string, step: number, held: boolean, at: Date): Promise<void> {
      await db
        .updateTable("run_search_steps")
        .set({ held, judged_at: at })
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .where("step", "=", step)
        .where("held", "is", null)
        .execute();
    },
  };
}
