import { snapshotKey, type MetricSnapshot } from "@throng/protocol/snapshot";
import type { Repos } from "@throng/db/repos";
import type { SnapshotRow } from "@throng/db/repos/snapshots";
import type { Bus, Log } from "../ports";
import type { PointStages, TracedSnapshot } from "./ingest-stages";
import { storedSnapshot } from "@throng/wire/snapshot-merge";
import { keepErrorSamples } from "./error-samples";
import { keepRooms } from "./rooms";
import { createLateSeconds } from "./late-seconds";
import { createOpenSeconds, type OpenSeconds } from "./open-seconds";
import { SecondMerges } from "./second-merges";
import { createSnapshotBatcher, type SnapshotBatcher } from "./snapshot-batch";

export type IngestResult = "stored" | "duplicate" | "unknown-run";

/** Shards this process has seen (never deleted while their run exists), oldest dropped first past this many. */
const SHARD_CACHE_SIZE = 20_000;

/** Which agents hold a shard of which run, and how many load shards each run has, read once per run. */
function createShardCache(repos: Repos) {
  const shards = new Set<string>();
  /** Load shards per run (the snapshots a second of it expects), as read with its shards. */
  const loadShardCounts = new Map<string, number>();
  const shardLoads = new Map<string, Promise<void>>();

  /** One read of a run's shards fills the cache for all its agents: a fleet's first snapshots arrive together. */
  function loadShards(orgId: string, runId: string): Promise<void> {
    const key = `${orgId}:${runId}`;
    let load = shardLoads.get(key);
    if (!load) {
      load = repos.runs
        .listShards(orgId, runId)
        .then((rows) => {
          if (loadShardCounts.size >= SHARD_CACHE_SIZE) loadShardCounts.delete(loadShardCounts.keys().next().value!);
          loadShardCounts.set(runId, rows.filter((row) => row.role === "load").length);
          for (const row of rows) {
            if (shards.size >= SHARD_CACHE_SIZE) shards.delete(shards.values().next().value!);
            shards.add(`${orgId}:${runId}:${row.agentId}`);
          }
        })
        .finally(() => shardLoads.delete(key));
      shardLoads.set(key, load);
    }
    return load;
  }

  return {
    loadShardCount: (runId: string) => loadShardCounts.get(runId),
    async holdsShard(orgId: string, runId: string, agentId: string): Promise<boolean> {
      // The shard proves the run is this org's and this agent's: no agent writes into another org's run.
      const key = `${orgId}:${runId}:${agentId}`;
      if (!shards.has(key)) await loadShards(orgId, runId);
      return shards.has(key);
    },
  };
}

type ShardCache = ReturnType<typeof createShardCache>;

/**
 * The batched snapshot inserts; when stages are traced, also when each snapshot's batch went to the database
 * (`batchedAt`, keyed by snapshotKey; the ingest deletes its key after the commit).
 */
function createTracedBatcher(repos: Repos, traced: boolean) {
  const batchedAt = new Map<string, number>();
  const insertMany: typeof repos.snapshots.insertMany = !traced
    ? repos.snapshots.insertMany
    : (rows) => {
        const at = Date.now();
        for (const { runId, row } of rows) batchedAt.set(snapshotKey(runId, row.agentId, row.seq), at);
        return repos.snapshots.insertMany(rows);
      };
  return { batcher: createSnapshotBatcher({ insertMany }), batchedAt };
}

export interface IngestDeps {
  repos: Repos;
  bus: Bus;
  log?: Log;
  coalesceMs?: number;
  onStages?: (stages: PointStages) => void;
  /** A snapshot was stored for a run that had already closed: it must be judged again (late-seconds.ts). */
  onLateSnapshot?: (orgId: string, runId: string) => Promise<void>;
}

/** What one ingest works with: built once by createIngestService. */
interface Ingest {
  repos: Repos;
  coalesceMs: number;
  traced: boolean;
  batcher: SnapshotBatcher;
  batchedAt: Map<string, number>;
  seconds: OpenSeconds;
  shardCache: ShardCache;
  merges: SecondMerges;
  late: ReturnType<typeof createLateSeconds> | undefined;
}

/**
 * Stores an agent's snapshot once, then merges its second across agents into the roll-up and pushes it live.
 *
 * Snapshots are written in batches (one INSERT and one fsync for all that arrive while the previous batch
 * commits); `ingest` resolves after its batch has committed, so the caller's ack still means durable. Each
 * snapshot is added once to an in-memory merge of its second when it arrives (the point need not wait for the
 * fsync), and the roll-up is written from that: under the second's lock the stored count is compared with the
 * merge's stored snapshots and any it lacks (stored by another api instance, or before this process started) are
 * read and added; each second is merged again after its snapshots commit, so its last point is exact wherever
 * the agents are connected. With `coalesceMs` > 0 the writes and publishes of one second are coalesced to one
 * per window (second-merges.ts). The stored snapshots are the truth: `finish-run` rebuilds every second from them,
 * so a merge lost with a crashed process costs nothing but a late point.
 */
export function createIngestService(deps: IngestDeps) {
  const { repos } = deps;
  const coalesceMs = deps.coalesceMs ?? 0;
  const seconds = createOpenSeconds();
  const shardCache = createShardCache(repos);
  const ingest: Ingest = {
    repos,
    coalesceMs,
    traced: deps.onStages !== undefined,
    ...createTracedBatcher(repos, deps.onStages !== undefined),
    seconds,
    shardCache,
    merges: new SecondMerges({
      repos,
      bus: deps.bus,
      log: deps.log,
      coalesceMs,
      onStages: deps.onStages,
      seconds,
      expectedSnapshots: shardCache.loadShardCount,
    }),
    late: deps.onLateSnapshot
      ? createLateSeconds({ listEnded: repos.runs.listEnded, onLate: deps.onLateSnapshot })
      : undefined,
  };
  return {
    ingest: (orgId: string, agentId: string, snapshot: MetricSnapshot): Promise<IngestResult> =>
      ingestSnapshot(ingest, orgId, agentId, snapshot),
    /** Waits for every coalesced merge still waiting or running (SecondMerges.flush says when that matters). */
    flush: (): Promise<void> => ingest.merges.flush(),
  };
}
export type IngestService = ReturnType<typeof createIngestService>;

/** One snapshot: joins its second's merge, is stored (the ack waits for that), then its second is merged again. */
async function ingestSnapshot(
  ingest: Ingest,
  orgId: string,
  agentId: string,
  snapshot: MetricSnapshot,
): Promise<IngestResult> {
  const receivedAt = Date.now();
  const { runId } = snapshot;
  if (!(await ingest.shardCache.holdsShard(orgId, runId, agentId))) return "unknown-run";
  const row = storedSnapshot(agentId, snapshot);
  const { added, traced } = joinMerge(ingest, orgId, runId, agentId, row, receivedAt);
  const fresh = await storeSnapshot(ingest, orgId, runId, agentId, row, snapshot);
  if (traced) {
    traced[2] = ingest.batchedAt.get(snapshotKey(runId, agentId, row.seq)) ?? receivedAt;
    traced[3] = Date.now();
  }
  markStored(ingest, runId, agentId, row);
  if (!fresh && !added) return "duplicate"; // stored and merged here before: no point changes
  // Merged again after the commit: a merge on another api instance that ran before it could not read this
  // snapshot, so the second's last point must come from a merge that started after every commit.
  if (ingest.coalesceMs > 0) ingest.merges.schedule(orgId, runId, row.second);
  else await ingest.merges.merge(orgId, runId, row.second);
  return fresh ? "stored" : "duplicate"; // a duplicate new to this process (stored by another, or before a restart)
}

/**
 * Live before durable: the snapshot joins its second's merge (and the next point) now, while its batch commits; the
 * group commit's fsync was the largest stage between an agent's send and the browser (docs/benchmarks.md, "Control
 * plane"). The ack still waits for the commit. A snapshot whose insert fails is not acked, so its agent sends it
 * again; finish-run rebuilds every second from storage alone.
 */
function joinMerge(
  ingest: Ingest,
  orgId: string,
  runId: string,
  agentId: string,
  row: SnapshotRow,
  receivedAt: number,
) {
  const added = ingest.seconds.add(runId, row.second, row);
  const traced: TracedSnapshot | undefined = added && ingest.traced ? [agentId, receivedAt, null, null] : undefined;
  if (traced) ingest.seconds.openSecond(runId, row.second).untraced.push(traced);
  if (added && ingest.coalesceMs > 0) ingest.merges.schedule(orgId, runId, row.second);
  return { added, traced };
}

/** Stores the snapshot in its batch, then what must be kept before the ack; true when it was not stored before. */
async function storeSnapshot(
  ingest: Ingest,
  orgId: string,
  runId: string,
  agentId: string,
  row: SnapshotRow,
  snapshot: MetricSnapshot,
): Promise<boolean> {
  const fresh = await ingest.batcher.submit({ orgId, runId, row });
  // Before the ack, fresh or not: a snapshot re-sent because its samples failed to store keeps them then.
  await keepErrorSamples(ingest.repos, orgId, runId, agentId, snapshot.errorSamples);
  await keepRooms(ingest.repos, orgId, runId, agentId, snapshot.seq, snapshot.rooms);
  // Before the ack: a run that closed meanwhile is judged again, or the agent sends this snapshot again.
  await ingest.late?.stored(orgId, runId);
  return fresh;
}

/**
 * Counted stored only while this merge holds it (a duplicate was stored before): were the open second swept and
 * opened afresh meanwhile, the count check must still find the snapshot missing and read it back.
 */
function markStored(ingest: Ingest, runId: string, agentId: string, row: SnapshotRow) {
  const key = snapshotKey(runId, agentId, row.seq);
  ingest.batchedAt.delete(key);
  const entry = ingest.seconds.openSecond(runId, row.second);
  if (entry.keys.has(key)) entry.stored.add(key);
  ingest.seconds.sweep(Date.now(), (pendingKey) => ingest.merges.isPending(pendingKey));
}
