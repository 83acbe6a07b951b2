import { sql } from "kysely";
import type { Db } from "../../client";
import { selectOrgRows, updateOrgRow } from "../org-rows";
import type { RunPatch } from "../runs";

/** A run's way through its states: the start queue and lock, status transitions, which runs have ended. */
export function createRunLifecycle(db: Db) {
  return {
    /** The org's runs waiting for their agents, oldest first: the queue's order. */
    async listQueuedIds(orgId: string, limit = 100): Promise<string[]> {
      const rows = await selectOrgRows(db, "runs", orgId)
        .select("id")
        .where("status", "=", "queued")
        .orderBy("created_at", "asc")
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },
    /**
     * Runs `fn` while holding the org's start lock (an advisory lock for the length of a transaction): one run at a
     * time picks its agents and stores its shards, so two queued runs never take the same free agent.
     */
    async withStartLock<T>(orgId: string, fn: () => Promise<T>): Promise<T> {
      return db.transaction().execute(async (tx) => {
        await sql`select pg_advisory_xact_lock(hashtextextended(${`run-start:${orgId}`}, 0))`.execute(tx);
        return fn();
      });
    },
    /**
     * Compare-and-set on status so that a job running twice cannot apply the same transition twice; with
     * `fromJudged`, also on the snapshots the stored verdict was judged on, so two judgements of the same late
     * seconds cannot both be recorded.
     */
    async update(
      orgId: string,
      id: string,
      fromStatus: string,
      patch: RunPatch,
      fromJudged?: { judgedSnapshots: number | null },
    ): Promise<boolean> {
      const result = await updateOrgRow(db, "runs", orgId, "id", id)
        .set({
          ...(patch.status !== undefined && { status: patch.status }),
          ...(patch.error !== undefined && { error: patch.error }),
          ...(patch.summary !== undefined && { summary: JSON.stringify(patch.summary) }),
          ...(patch.verdict !== undefined && { verdict: JSON.stringify(patch.verdict) }),
          ...(patch.capacity !== undefined && { capacity: JSON.stringify(patch.capacity) }),
          ...(patch.startAt !== undefined && { start_at: patch.startAt }),
          ...(patch.startedAt !== undefined && { started_at: patch.startedAt }),
          ...(patch.endedAt !== undefined && { ended_at: patch.endedAt }),
          ...(patch.judgedSnapshots !== undefined && { judged_snapshots: patch.judgedSnapshots }),
        })
        .where("status", "=", fromStatus)
        .$if(fromJudged !== undefined, (q) =>
          q.where(sql<boolean>`judged_snapshots is not distinct from ${fromJudged!.judgedSnapshots}`),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    /**
     * Of `runIds`, those that have ended (finished, aborted, failed): a snapshot stored for one arrived after its
     * close.
     */
    async listEnded(orgId: string, runIds: readonly string[]): Promise<string[]> {
      if (runIds.length === 0) return [];
      const rows = await selectOrgRows(db, "runs", orgId)
        .select("id")
        .where("id", "in", [...runIds])
        .where("status", "in", ["finished", "aborted", "failed"])
        .execute();
      return rows.map((row) => row.id);
    },
  };
}
