import { sql } from "kysely";
import type { Db } from "../client";

export interface SnapshotRow {
  agentId: string;
  seq: number;
  second: number;
  intervalMs: number;
  clients: number;
  counters: unknown;
  rttHist: string;
  /** The other encoded histograms by their snapshot name (rttCorrectedUs, connectUs, ...). */
  histograms: Record<string, string>;
  step: number | null;
  health: unknown;
}

const columns = [
  "agent_id as agentId", "seq", "second", "interval_ms as intervalMs", "clients", "counters", "rtt_hist as rttHist", "histograms", "step", "health",
] as const;

/** Reading one second's snapshots and writing its roll-up: what a re-merge does, inside the second's lock. */
function secondRollup(db: Db) {
  return {
    /** The roll-up: one merged point per run per second, replaced as late snapshots arrive. */
    async upsertSecond(orgId: string, runId: string, second: number, point: unknown) {
      await db
        .insertInto("run_seconds")
        .values({ run_id: runId, org_id: orgId, second, point: JSON.stringify(point) })
        .onConflict((oc) => oc.columns(["run_id", "second"]).doUpdateSet({ point: JSON.stringify(point) }))
        .execute();
    },
    async listSecond(orgId: string, runId: string, second: number): Promise<SnapshotRow[]> {
      return db
        .selectFrom("snapshots")
        .select(columns)
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .where("second", "=", second)
        .execute();
    },
  };
}
export type SecondRollup = ReturnType<typeof secondRollup>;

/** Per-agent per-second snapshots; insert is idempotent on (run, agent, seq). */
export function createSnapshotRepo(db: Db) {
  return {
    ...secondRollup(db),
    /**
     * Runs `fn` in a transaction holding a lock on one second of a run (an advisory lock, so it works before the
     * roll-up row exists), with the second's queries bound to it. Concurrent ingests of a second, on any
     * api instance, then re-merge one after another, each seeing every snapshot stored before it.
     */
    async withSecondLocked<T>(runId: string, second: number, fn: (locked: SecondRollup) => Promise<T>): Promise<T> {
      return db.transaction().execute(async (tx) => {
        await sql`select pg_advisory_xact_lock(hashtextextended(${`${runId}:${second}`}, 0))`.execute(tx);
        return fn(secondRollup(tx));
      });
    },
    /** True when stored now, false when this (run, agent, seq) was already stored. */
    async insert(orgId: string, runId: string, row: SnapshotRow): Promise<boolean> {
      const result = await db
        .insertInto("snapshots")
        .values({
          run_id: runId, agent_id: row.agentId, seq: row.seq, org_id: orgId, second: row.second, interval_ms: row.intervalMs,
          clients: row.clients, counters: JSON.stringify(row.counters), rtt_hist: row.rttHist, health: JSON.stringify(row.health),
          histograms: JSON.stringify(row.histograms), step: row.step,
        })
        .onConflict((oc) => oc.columns(["run_id", "agent_id", "seq"]).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async listSeconds(orgId: string, runId: string): Promise<unknown[]> {
      const rows = await db
        .selectFrom("run_seconds")
        .select("point")
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .orderBy("second")
        .execute();
      return rows.map((row) => row.point);
    },
    async listRun(orgId: string, runId: string): Promise<SnapshotRow[]> {
      return db
        .selectFrom("snapshots")
        .select(columns)
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .orderBy("second")
        .orderBy("agent_id")
        .execute();
    },
  };
}
export type SnapshotRepo = ReturnType<typeof createSnapshotRepo>;
