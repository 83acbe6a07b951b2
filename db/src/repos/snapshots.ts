import { sql } from "kysely";
import { snapshotKey, type StoredSnapshot } from "@throng/protocol/snapshot";
import type { Db } from "../client";
import { countOrgRows, selectOrgRows } from "./org-rows";

/** A stored snapshot, as the merge reads it. */
export type SnapshotRow = StoredSnapshot;

const columns = [
  "agent_id as agentId",
  "seq",
  "second",
  "interval_ms as intervalMs",
  "clients",
  "counters",
  "rtt_hist as rttHist",
  "histograms",
  "step",
  "health",
  "cohorts",
] as const;

/** A run's snapshots, every column: the start of each read that narrows them to a second, a step or a range. */
function runSnapshots(db: Db, orgId: string, runId: string) {
  return selectOrgRows(db, "snapshots", orgId).select(columns).where("run_id", "=", runId);
}

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
      const row = await selectOrgRows(db, "snapshots", orgId)
        .select((eb) => eb.fn.countAll<string>().as("count"))
        .where("run_id", "=", runId)
        .where("second", "=", second)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
    /** The second's snapshots other than `known` (agent, seq) pairs: what an in-memory merge of it still lacks. */
    async listSecondExcept(
      orgId: string,
      runId: string,
      second: number,
      known: readonly { agentId: string; seq: number }[],
    ): Promise<SnapshotRow[]> {
      return runSnapshots(db, orgId, runId)
        .where("second", "=", second)
        .where(
          sql<boolean>`(agent_id, seq) not in (select * from unnest(${known.map((k) => k.agentId)}::uuid[], ${known.map((k) => k.seq)}::int[]))`,
        )
        .execute();
    },
    async listSecond(orgId: string, runId: string, second: number): Promise<SnapshotRow[]> {
      return runSnapshots(db, orgId, runId).where("second", "=", second).execute();
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
    // One array per column rather than a VALUES list: 13 parameters for any number of rows, so neither the query
    // builder nor PostgreSQL's parser and planner work per row (a 1,000-row VALUES list had 12,000 parameters).
    const column = <T>(pick: (item: (typeof rows)[number]) => T) => rows.map(pick);
    const { rows: stored } = await sql<{ run_id: string; agent_id: string; seq: number }>`
      insert into snapshots (run_id, agent_id, seq, org_id, second, interval_ms, clients, counters, rtt_hist, health, histograms, step, cohorts)
      select * from unnest(
        ${column((r) => r.runId)}::uuid[], ${column((r) => r.row.agentId)}::uuid[], ${column((r) => r.row.seq)}::int[],
        ${column((r) => r.orgId)}::text[], ${column((r) => r.row.second)}::bigint[], ${column((r) => r.row.intervalMs)}::int[],
        ${column((r) => r.row.clients)}::int[], ${column((r) => JSON.stringify(r.row.counters))}::jsonb[], ${column((r) => r.row.rttHist)}::text[],
        ${column((r) => JSON.stringify(r.row.health))}::jsonb[], ${column((r) => JSON.stringify(r.row.histograms))}::jsonb[],
        ${column((r) => r.row.step)}::int[], ${column((r) => (r.row.cohorts ? JSON.stringify(r.row.cohorts) : null))}::jsonb[]
      )
      on conflict (run_id, agent_id, seq) do nothing
      returning run_id, agent_id, seq`.execute(db);
    return new Set(stored.map((r) => snapshotKey(r.run_id, r.agent_id, r.seq)));
  }

  return {
    ...secondRollup(db),
    /**
     * Runs `fn` in a transaction holding a lock on one second of a run (an advisory lock, so it works before the
     * roll-up row exists), with the second's queries bound to it. Concurrent ingests of a second, on any
     * api instance, then re-merge one after another, each seeing every snapshot stored before it.
     * `durable: false` commits without waiting for the WAL to reach disk (the lock is let go sooner, the next
     * merge of the second waits less): for writes a rebuild from the stored snapshots redoes if PostgreSQL
     * crashes before they are flushed.
     */
    async withSecondLocked<T>(
      runId: string,
      second: number,
      fn: (locked: SecondRollup) => Promise<T>,
      options: { durable?: boolean } = {},
    ): Promise<T> {
      return db.transaction().execute(async (tx) => {
        const lock = sql`pg_advisory_xact_lock(hashtextextended(${`${runId}:${second}`}, 0))`;
        // One round trip either way; otherwise the server's own synchronous_commit stands.
        if (options.durable === false)
          await sql`select set_config('synchronous_commit', 'off', true), ${lock}`.execute(tx);
        else await sql`select ${lock}`.execute(tx);
        return fn(secondRollup(tx));
      });
    },
    /** True when stored now, false when this (run, agent, seq) was already stored. */
    async insert(orgId: string, runId: string, row: SnapshotRow): Promise<boolean> {
      return (await insertMany([{ orgId, runId, row }])).size === 1;
    },
    insertMany,
    /**
     * The series as browsers and reports read it: each stored second with `agentHealth` joined from its snapshots
     * (the roll-up leaves it out: ingest rewrites a second several times as its snapshots arrive, and at 2,000
     * agents the health of all of them was ~340 KB a write).
     */
    async listSeries(orgId: string, runId: string): Promise<unknown[]> {
      const { rows } = await sql<{ point: unknown }>`
        select rs.point || jsonb_build_object('agentHealth', coalesce(h.health, '[]'::jsonb)) as point
        from run_seconds rs
        left join lateral (
          select jsonb_agg(jsonb_build_object('agentId', s.agent_id) || s.health order by s.agent_id, s.seq) as health
          from snapshots s where s.run_id = rs.run_id and s.second = rs.second
        ) h on true
        where rs.org_id = ${orgId} and rs.run_id = ${runId}
        order by rs.second`.execute(db);
      return rows.map((row) => row.point);
    },
    /** The stored roll-up, one merged point per second, without the agents' health (see `listSeries`). */
    async listSeconds(orgId: string, runId: string): Promise<unknown[]> {
      const rows = await selectOrgRows(db, "run_seconds", orgId)
        .select("point")
        .where("run_id", "=", runId)
        .orderBy("second")
        .execute();
      return rows.map((row) => row.point);
    },
    /** The RTT histograms of seconds `from`..`to` (inclusive), one per snapshot: what the metrics export buckets. */
    async listRttHistograms(
      orgId: string,
      runId: string,
      from: number,
      to: number,
    ): Promise<{ second: number; rttHist: string }[]> {
      const rows = await selectOrgRows(db, "snapshots", orgId)
        .select(["second", "rtt_hist as rttHist"])
        .where("run_id", "=", runId)
        .where("second", ">=", from)
        .where("second", "<=", to)
        .execute();
      return rows.map((row) => ({ second: Number(row.second), rttHist: row.rttHist }));
    },
    /**
     * One latency histogram of every snapshot whose second is in [first, after): the RTT column, a histogram by its
     * snapshot name ("connectUs"), or a script's ("script" → NAME). Snapshots without it are left out.
     */
    async listLatencyHistograms(
      orgId: string,
      runId: string,
      source: { kind: "rtt" } | { kind: "histogram" | "script"; name: string },
      first: number,
      after: number,
    ): Promise<{ second: number; encoded: string }[]> {
      const encoded =
        source.kind === "rtt"
          ? sql<string | null>`rtt_hist`
          : source.kind === "histogram"
            ? sql<string | null>`histograms ->> ${source.name}`
            : sql<string | null>`histograms -> 'script' ->> ${source.name}`;
      const { rows } = await sql<{ second: string | number; encoded: string | null }>`
        select second, ${encoded} as encoded from snapshots
        where org_id = ${orgId} and run_id = ${runId} and second >= ${first} and second < ${after} and ${encoded} is not null`.execute(
        db,
      );
      return rows.map((row) => ({ second: Number(row.second), encoded: row.encoded! }));
    },
    /** One step's snapshots from every agent (what a capacity search judges the step on). */
    async listStep(orgId: string, runId: string, step: number): Promise<SnapshotRow[]> {
      return runSnapshots(db, orgId, runId).where("step", "=", step).orderBy("second").orderBy("agent_id").execute();
    },
    /** How many snapshots the run has stored: more than its verdict was judged on means seconds came after. */
    async countRun(orgId: string, runId: string): Promise<number> {
      return countOrgRows(db, "snapshots", orgId, "run_id", runId);
    },
    /** The snapshots of seconds `first` up to, not including, `after` (epoch seconds): a zoomed range's summary. */
    async listRunSeconds(orgId: string, runId: string, first: number, after: number): Promise<SnapshotRow[]> {
      return runSnapshots(db, orgId, runId)
        .where("second", ">=", first)
        .where("second", "<", after)
        .orderBy("second")
        .orderBy("agent_id")
        .execute();
    },
    async listRun(orgId: string, runId: string): Promise<SnapshotRow[]> {
      return runSnapshots(db, orgId, runId).orderBy("second").orderBy("agent_id").execute();
    },
  };
}
export type SnapshotRepo = ReturnType<typeof createSnapshotRepo>;
