import type { Db } from "../../client";
import { selectOrgRows, updateOrgRow } from "../org-rows";
import type { ShardRow } from "../runs";

/** A shard's columns as a ShardRow names them. */
const shardColumns = [
  "run_id as runId",
  "agent_id as agentId",
  "shard_index as shardIndex",
  "clients",
  "role",
  "state",
  "last_seq as lastSeq",
  "error",
] as const;

/** A run's shards: one per agent, each with its clients, its state and the last sequence number it sent. */
export function createRunShards(db: Db) {
  return {
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
      return selectOrgRows(db, "run_shards", orgId)
        .select(shardColumns)
        .where("run_id", "=", runId)
        .orderBy("shard_index")
        .execute();
    },
    /**
     * How many of the run's shards there are, how many are in none of the `notIn` states, and the clients of the
     * shards before `beforeIndex`; without reading them all.
     */
    async countShards(
      orgId: string,
      runId: string,
      notIn: readonly string[] = [],
      beforeIndex = 0,
    ): Promise<{ total: number; notIn: number; clientsBefore: number }> {
      const row = await selectOrgRows(db, "run_shards", orgId)
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
        .where("run_id", "=", runId)
        .executeTakeFirstOrThrow();
      return { total: Number(row.total), notIn: Number(row.notIn), clientsBefore: Number(row.clientsBefore) };
    },
    async getShard(orgId: string, runId: string, agentId: string): Promise<ShardRow | undefined> {
      return selectOrgRows(db, "run_shards", orgId)
        .select(shardColumns)
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
      const result = await updateOrgRow(db, "run_shards", orgId, "run_id", runId)
        .set({
          state: patch.state,
          ...(patch.lastSeq !== undefined && { last_seq: patch.lastSeq }),
          ...(patch.error !== undefined && { error: patch.error }),
        })
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
