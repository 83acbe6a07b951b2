import { sql } from "kysely";
import { snapshotKey } from "@throng/protocol/snapshot";
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
        .onConflict((oc) => oc.columns(["run_id", "second"]).doUpdateSet((eb) => ({ point: eb.ref("excluded.point") })))
        .execute();
    },
    /** How many snapshots of the second are stored: tells whether an in-memory merge of them is complete. */
    async countSecond(orgId: string, runId: string, second: number): Promise<number> {
      const row = await db
        .selectFrom("snapshots")
        .select((eb) => eb.fn.countAll<string>().as("count"))
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .where("second", "=", second)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
    /** The second's snapshots other than `known` (agent, seq) pairs: what an in-memory merge of it still lacks. */
    async listSecondExcept(orgId: string, runId: string, second: number, known: readonly { agentId: string; seq: number }[]): Promise<SnapshotRow[]> {
      return db
        .selectFrom("snapshots")
        .select(columns)
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .where("second", "=", second)
        .where(sql<boolean>`(agent_id, seq) not in (select * from unnest(${known.map((k) => k.agentId)}::uuid[], ${known.map((k) => k.seq)}::int[]))`)
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
  /**
   * Many snapshots in one statement (one commit, one fsync), each idempotent on (run, agent, seq); returns the
   * keys (`run:agent:seq`) stored now. Rows with the same key must not repeat within one call.
   */
  async function insertMany(rows: readonly { orgId: string; runId: string; row: SnapshotRow }[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const stored = await db
      .insertInto("snapshots")
      .values(rows.map(({ orgId, runId, row }) => ({
        run_id: runId, agent_id: row.agentId, seq: row.seq, org_id: orgId, second: row.second, interval_ms: row.intervalMs,
        clients: row.clients, counters: JSON.stringify(row.counters), rtt_hist: row.rttHist, health: JSON.stringify(row.health),
        histograms: JSON.stringify(row.histograms), step: row.step,
      })))
      .onConflict((oc) => oc.columns(["run_id", "agent_id", "seq"]).doNothing())
      .returning(["run_id", "agent_id", "seq"])
      .execute();
    return new Set(stored.map((r) => snapshotKey(r.run_id, r.agent_id, r.seq)));
  }

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
      return (await insertMany([{ orgId, runId, row }])).size === 1;
    },
    insertMany,
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
    /** One step's snapshots from every agent (what a capacity search judges the step on). */
    async listStep(orgId: string, runId: string, step: number): Promise<SnapshotRow[]> {
      return db
        .selectFrom("snapshots")
        .select(columns)
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .where("step", "=", step)
        .orderBy("second")
        .orderBy("agent_id")
        .execute();
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
