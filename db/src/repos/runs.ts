import { sql } from "kysely";
import type { PlanSpec } from "@throng/protocol/plan";
import type { Db } from "../client";
import { readStoredPlan } from "../stored-plan";

export interface RunRow {
  id: string;
  orgId: string;
  planId: string;
  planName: string;
  planVersion: number | null;
  /** The plan as the run was started with, parsed when the row is read. */
  spec: PlanSpec;
  status: string;
  error: string | null;
  summary: unknown;
  verdict: unknown;
  capacity: unknown;
  startAt: Date | null;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  startedBy: string | null;
  /** The name of the user whose email `startedBy` is; null for a token, a schedule or a user since deleted. */
  startedByName: string | null;
  note: string;
  tags: string[];
  notesEditedBy: string | null;
  notesEditedByName: string | null;
  notesEditedAt: Date | null;
  /** How many stored snapshots the summary and verdict were judged on; null before the run's closing judgement. */
  judgedSnapshots: number | null;
}

/** What GET /api/runs filters by; each left out matches every run. */
export interface RunFilterRow {
  status?: string;
  outcome?: string;
  planId?: string;
  createdFrom?: Date;
  createdBefore?: Date;
  tag?: string;
}

export interface ShardRow {
  runId: string;
  agentId: string;
  shardIndex: number;
  clients: number;
  /** "load" or "watch" (a watcher's shard: no clients, samples of the server under test). */
  role: string;
  state: string;
  lastSeq: number | null;
  error: string | null;
}

export interface RunEventRow {
  at: Date;
  kind: string;
  agentId: string | null;
  message: string;
}

export type RunPatch = Partial<{
  status: string;
  error: string | null;
  summary: unknown;
  verdict: unknown;
  capacity: unknown;
  startAt: Date;
  /** null: the run ended before its planned start, so it never started. */
  startedAt: Date | null;
  endedAt: Date;
  judgedSnapshots: number;
}>;

/** A row as core sees it: its plan parsed once, here. */
function runOf<R extends { id: string; spec: unknown }>(row: R): R & { spec: PlanSpec } {
  return { ...row, spec: readStoredPlan(row.spec, `run ${row.id}`) };
}

/** Runs and their shards (one per agent), scoped by orgId. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory of short methods over one set of dependencies; its length is the count of methods, not one long procedure.
export function createRunRepo(db: Db) {
  const runQuery = (orgId: string) =>
    db
      .selectFrom("runs as r")
      .innerJoin("plans as p", "p.id", "r.plan_id")
      // Who started a run and last edited its notes are kept as actors (an email, "token ci"); a member's name is read here.
      .leftJoin("user as starter", "starter.email", "r.started_by")
      .leftJoin("user as editor", "editor.email", "r.notes_edited_by")
      .select([
        "r.id",
        "r.org_id as orgId",
        "r.plan_id as planId",
        "p.name as planName",
        "r.plan_version as planVersion",
        "r.spec",
        "r.status",
        "r.error",
        "r.summary",
        "r.verdict",
        "r.capacity",
        "r.start_at as startAt",
        "r.created_at as createdAt",
        "r.started_at as startedAt",
        "r.ended_at as endedAt",
        "r.started_by as startedBy",
        "starter.name as startedByName",
        "r.note",
        "r.tags",
        "r.notes_edited_by as notesEditedBy",
        "editor.name as notesEditedByName",
        "r.notes_edited_at as notesEditedAt",
        "r.judged_snapshots as judgedSnapshots",
      ])
      .where("r.org_id", "=", orgId);

  return {
    async insert(
      orgId: string,
      run: { id: string; planId: string; planVersion?: number; spec: PlanSpec; status: string; startedBy?: string },
    ) {
      await db
        .insertInto("runs")
        .values({
          id: run.id,
          org_id: orgId,
          plan_id: run.planId,
          plan_version: run.planVersion ?? null,
          spec: JSON.stringify(run.spec),
          status: run.status,
          started_by: run.startedBy ?? null,
        })
        .execute();
    },
    async get(orgId: string, id: string): Promise<RunRow | undefined> {
      const row = await runQuery(orgId).where("r.id", "=", id).executeTakeFirst();
      return row && runOf(row);
    },
    async list(orgId: string, limit = 100): Promise<RunRow[]> {
      return (await runQuery(orgId).orderBy("r.created_at", "desc").limit(limit).execute()).map(runOf);
    },
    /** One page of the runs matching `filter`, newest first, and how many match over every page. */
    async listPage(
      orgId: string,
      filter: RunFilterRow,
      limit: number,
      offset: number,
    ): Promise<{ rows: RunRow[]; matching: number }> {
      const filtered = <T extends ReturnType<typeof runQuery>>(query: T): T => {
        let q = query;
        if (filter.status !== undefined) q = q.where("r.status", "=", filter.status) as T;
        if (filter.outcome !== undefined) q = q.where(sql<string>`r.verdict ->> 'outcome'`, "=", filter.outcome) as T;
        if (filter.planId !== undefined) q = q.where("r.plan_id", "=", filter.planId) as T;
        if (filter.createdFrom !== undefined) q = q.where("r.created_at", ">=", filter.createdFrom) as T;
        if (filter.createdBefore !== undefined) q = q.where("r.created_at", "<", filter.createdBefore) as T;
        // Containment, so runs_tags_idx (GIN) answers it.
        if (filter.tag !== undefined) q = q.where(sql<boolean>`r.tags @> array[${filter.tag}]::text[]`) as T;
        return q;
      };
      const [rows, count] = await Promise.all([
        filtered(runQuery(orgId))
          .orderBy("r.created_at", "desc")
          .orderBy("r.id", "desc")
          .limit(limit)
          .offset(offset)
          .execute(),
        filtered(runQuery(orgId))
          .clearSelect()
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows: rows.map(runOf), matching: Number(count.n) };
    },
    /** Sets a run's note and/or tags and who changed them; false when the org has no such run. */
    async updateNotes(
      orgId: string,
      id: string,
      notes: { note?: string; tags?: string[]; editedBy: string },
    ): Promise<boolean> {
      const result = await db
        .updateTable("runs")
        .set({
          ...(notes.note !== undefined && { note: notes.note }),
          ...(notes.tags !== undefined && { tags: notes.tags }),
          notes_edited_by: notes.editedBy,
          notes_edited_at: sql<Date>`now()`,
        })
        .where("org_id", "=", orgId)
        .where("id", "=", id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    /** The org's runs waiting for their agents, oldest first: the queue's order. */
    async listQueuedIds(orgId: string, limit = 100): Promise<string[]> {
      const rows = await db
        .selectFrom("runs")
        .select("id")
        .where("org_id", "=", orgId)
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
      const result = await db
        .updateTable("runs")
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
        .where("org_id", "=", orgId)
        .where("id", "=", id)
        .where("status", "=", fromStatus)
        .$if(fromJudged !== undefined, (q) =>
          q.where(sql<boolean>`judged_snapshots is not distinct from ${fromJudged!.judgedSnapshots}`),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async insertEvent(orgId: string, runId: string, event: { kind: string; agentId: string | null; message: string }) {
      await db
        .insertInto("run_events")
        .values({ run_id: runId, org_id: orgId, kind: event.kind, agent_id: event.agentId, message: event.message })
        .execute();
    },
    /** Replaces the run's events of `kind` with `events` (one transaction): what a judgement found, as it now stands. */
    async replaceEvents(
      orgId: string,
      runId: string,
      kind: string,
      events: readonly { agentId: string | null; message: string }[],
    ) {
      await db.transaction().execute(async (tx) => {
        // Two closes of one run may replace its events at once (a job run twice, two workers): without the lock both
        // delete nothing and both insert, and the run shows every event twice.
        await sql`select pg_advisory_xact_lock(hashtextextended(${`run-events:${runId}:${kind}`}, 0))`.execute(tx);
        await tx
          .deleteFrom("run_events")
          .where("org_id", "=", orgId)
          .where("run_id", "=", runId)
          .where("kind", "=", kind)
          .execute();
        if (events.length === 0) return;
        await tx
          .insertInto("run_events")
          .values(events.map((e) => ({ run_id: runId, org_id: orgId, kind, agent_id: e.agentId, message: e.message })))
          .execute();
      });
    },
    /** Of `runIds`, those that have ended (finished, aborted, failed): a snapshot stored for one arrived after its close. */
    async listEnded(orgId: string, runIds: readonly string[]): Promise<string[]> {
      if (runIds.length === 0) return [];
      const rows = await db
        .selectFrom("runs")
        .select("id")
        .where("org_id", "=", orgId)
        .where("id", "in", [...runIds])
        .where("status", "in", ["finished", "aborted", "failed"])
        .execute();
      return rows.map((row) => row.id);
    },
    async listEvents(orgId: string, runId: string): Promise<RunEventRow[]> {
      return db
        .selectFrom("run_events")
        .select(["at", "kind", "agent_id as agentId", "message"])
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .orderBy("at")
        .orderBy("id")
        .execute();
    },
    async insertShards(
      orgId: string,
      runId: string,
      shards: { agentId: string; shardIndex: number; clients: number; role?: string }[],
    ) {
      if (shards.length === 0) return;
      await db
        .insertInto("run_shards")
        .values(
          shards.map((s) => ({
            run_id: runId,
            agent_id: s.agentId,
            org_id: orgId,
            shard_index: s.shardIndex,
            clients: s.clients,
            role: s.role ?? "load",
          })),
        )
        .onConflict((oc) => oc.columns(["run_id", "agent_id"]).doNothing())
        .execute();
    },
    async listShards(orgId: string, runId: string): Promise<ShardRow[]> {
      return db
        .selectFrom("run_shards")
        .select([
          "run_id as runId",
          "agent_id as agentId",
          "shard_index as shardIndex",
          "clients",
          "role",
          "state",
          "last_seq as lastSeq",
          "error",
        ])
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .orderBy("shard_index")
        .execute();
    },
    /** How many of the run's shards there are, and how many are in none of `states`; without reading them all. */
    /** Shards of a run, those not in `notIn` states, and the clients of the shards before `beforeIndex`. */
    async countShards(
      orgId: string,
      runId: string,
      notIn: readonly string[] = [],
      beforeIndex = 0,
    ): Promise<{ total: number; notIn: number; clientsBefore: number }> {
      const row = await db
        .selectFrom("run_shards")
        .select((eb) => [
          eb.fn.countAll<string>().as("total"),
          eb.fn
            .countAll<string>()
            .filterWhere(notIn.length ? eb("state", "not in", notIn) : eb.lit(true))
            .as("notIn"),
          eb.fn
            .coalesce(eb.fn.sum<string>("clients").filterWhere("shard_index", "<", beforeIndex), eb.lit(0))
            .as("clientsBefore"),
        ])
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .executeTakeFirstOrThrow();
      return { total: Number(row.total), notIn: Number(row.notIn), clientsBefore: Number(row.clientsBefore) };
    },
    async getShard(orgId: string, runId: string, agentId: string): Promise<ShardRow | undefined> {
      return db
        .selectFrom("run_shards")
        .select([
          "run_id as runId",
          "agent_id as agentId",
          "shard_index as shardIndex",
          "clients",
          "role",
          "state",
          "last_seq as lastSeq",
          "error",
        ])
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .where("agent_id", "=", agentId)
        .executeTakeFirst();
    },
    async updateShard(
      orgId: string,
      runId: string,
      agentId: string,
      patch: { state: string; lastSeq?: number | null; error?: string | null },
    ) {
      const result = await db
        .updateTable("run_shards")
        .set({
          state: patch.state,
          ...(patch.lastSeq !== undefined && { last_seq: patch.lastSeq }),
          ...(patch.error !== undefined && { error: patch.error }),
        })
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .where("agent_id", "=", agentId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    /** Shards of runs still under way that this agent holds: re-sent when it reconnects. */
    async activeShardsForAgent(orgId: string, agentId: string): Promise<(ShardRow & { runStatus: string })[]> {
      return db
        .selectFrom("run_shards as s")
        .innerJoin("runs as r", "r.id", "s.run_id")
        .select([
          "s.run_id as runId",
          "s.agent_id as agentId",
          "s.shard_index as shardIndex",
          "s.clients",
          "s.role",
          "s.state",
          "s.last_seq as lastSeq",
          "s.error",
          "r.status as runStatus",
        ])
        .where("s.org_id", "=", orgId)
        .where("s.agent_id", "=", agentId)
        .where("s.state", "in", ["assigned", "started"])
        .where("r.status", "in", ["preparing", "running", "degraded"])
        .execute();
    },
  };
}
export type RunRepo = ReturnType<typeof createRunRepo>;
