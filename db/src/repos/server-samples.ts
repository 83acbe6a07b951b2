import type { Db } from "../client";
import { selectOrgRows } from "./org-rows";

export interface ServerSampleRow {
  agentId: string;
  seq: number;
  /** Epoch second of the sample's interval start (server clock). */
  second: number;
  /** The ServerSample as the watcher sent it, without runId. */
  sample: unknown;
}

/** Watchers' per-second samples of the server under test; insert is idempotent on (run, agent, seq). */
export function createServerSampleRepo(db: Db) {
  return {
    /** True when stored now, false when this (run, agent, seq) was already stored. */
    async insert(orgId: string, runId: string, row: ServerSampleRow): Promise<boolean> {
      const result = await db
        .insertInto("run_server_samples")
        .values({
          run_id: runId,
          agent_id: row.agentId,
          seq: row.seq,
          org_id: orgId,
          second: row.second,
          sample: JSON.stringify(row.sample),
        })
        .onConflict((oc) => oc.columns(["run_id", "agent_id", "seq"]).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async listRun(orgId: string, runId: string): Promise<ServerSampleRow[]> {
      const rows = await selectOrgRows(db, "run_server_samples", orgId)
        .select(["agent_id as agentId", "seq", "second", "sample"])
        .where("run_id", "=", runId)
        .orderBy("second")
        .orderBy("agent_id")
        .execute();
      return rows.map((row) => ({ ...row, second: Number(row.second) }));
    },
  };
}
export type ServerSampleRepo = ReturnType<typeof createServerSampleRepo>;
