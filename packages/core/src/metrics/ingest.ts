import { snapshotKey, type MetricSnapshot } from "@throng/protocol/snapshot";
import type { Repos } from "@throng/db/repos";
import type { SecondRollup, SnapshotRow } from "@throng/db/repos/snapshots";
import type { Bus, Log } from "../ports";
import { publishLive } from "../runs/live";
import type { PointStages, TracedSnapshot } from "./ingest-stages";
import { createMerge, storedSnapshot, type Merge } from "@throng/wire/snapshot-merge";
import { keepErrorSamples } from "./error-samples";
import { keepRooms } from "./rooms";
import { createLateSeconds } from "./late-seconds";
import { createSnapshotBatcher } from "./snapshot-batch";

export type IngestResult = "stored" | "duplicate" | "unknown-run";

interface PendingMerge {
  running: boolean;
  /** A snapshot arrived while the merge was running: merge again once it is done. */
  again: boolean;
  /** Ends the coalescing window now (set while the merge waits in it). */
  now?: () => void;
}

/** One second of a run as far as this process has merged it: each snapshot is added once. */
interface OpenSecond {
  merge: Merge;
  keys: Set<string>;
  /** The merged snapshots known to be stored (committed by this process, or read from storage). */
  stored: Set<string>;
  lastAddedAt: number;
  /** How many of the merge's agent healths have been published ("agent-health" follows each point with the new ones). */
  healthPublished: number;
  /** This process's snapshots not yet carried by a point, when stages are traced (see PointStages.snapshots). */
  untraced: TracedSnapshot[];
}

/**
 * Seconds merged at once. Each merge holds a pooled connection through its lock, upsert and publish; with many
 * seconds open (a backlog) unbounded merges took the whole pool and the snapshot inserts queued behind them.
 */
const MAX_CONCURRENT_MERGES = 2;
/** An open second not added to for this long is dropped; a late snapshot for it re-reads it once from storage. */
const OPEN_SECOND_TTL_MS = 60_000;
/** Shards this process has seen (never deleted while their run exists), oldest dropped first past this many. */
const SHARD_CACHE_SIZE = 20_000;

/** At most `max` merges at once; the others wait their turn in arrival order. */
function createMergeSlots(max: number) {
  let merging = 0;
  const waiting: (() => void)[] = [];
  return async function inMergeSlot<T>(fn: () => Promise<T>): Promise<T> {
    if (merging >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    else merging += 1;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next)
        next(); // the slot passes straight on
      else merging -= 1;
    }
  };
}

/** The seconds this process is merging, each snapshot added once; dropped after OPEN_SECOND_TTL_MS untouched. */
function createOpenSeconds() {
  const open = new Map<string, OpenSecond>();
  let lastSweep = Date.now();

  function openSecond(runId: string, second: number): OpenSecond {
    const key = `${runId}:${second}`;
    let entry = open.get(key);
    if (!entry)
      open.set(
        key,
        (entry = {
          merge: createMerge(),
          keys: new Set(),
          stored: new Set(),
          lastAddedAt: Date.now(),
          healthPublished: 0,
          untraced: [],
        }),
      );
    return entry;
  }

  return {
    openSecond,
    get: (runId: string, second: number) => open.get(`${runId}:${second}`),
    /** Adds a snapshot to its second's merge once; false when the merge already holds it. */
    add(runId: string, second: number, row: SnapshotRow): boolean {
      const entry = openSecond(runId, second);
      const key = snapshotKey(runId, row.agentId, row.seq);
      if (entry.keys.has(key)) return false; // a resend, or read from storage by a merge before this process's own add
      entry.keys.add(key);
      entry.merge.add(row);
      entry.lastAddedAt = Date.now();
      return true;
    },
    /** Drops the seconds idle past their TTL, except those a merge still waits for (`pending`). */
    sweep(now: number, pending: (key: string) => boolean) {
      if (now - lastSweep < 5_000) return;
      lastSweep = now;
      for (const [key, entry] of open)
        if (now - entry.lastAddedAt > OPEN_SECOND_TTL_MS && !pending(key)) open.delete(key);
    },
  };
}

type OpenSeconds = ReturnType<typeof createOpenSeconds>;

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

/** Under the second's lock: completes the merge from storage if needed, publishes the point, writes the roll-up. */
async function mergeLocked(
  into: { seconds: OpenSeconds; bus: Bus; onStages?: (stages: PointStages) => void },
  locked: SecondRollup,
  orgId: string,
  runId: string,
  second: number,
  times: { startedAt: number; slotAt: number },
) {
  const { seconds, bus } = into;
  const lockedAt = Date.now();
  const entry = seconds.openSecond(runId, second);
  let readRows = 0;
  // Storage holding more than the merge knows stored means another instance (or this process before a restart)
  // stored snapshots this merge lacks. The merge may also hold snapshots not yet committed: they are not counted.
  if ((await locked.countSecond(orgId, runId, second)) > entry.stored.size) {
    const known = [...entry.keys].map((key) => ({ agentId: key.split(":")[1]!, seq: Number(key.split(":")[2]) }));
    const rows = await locked.listSecondExcept(orgId, runId, second, known);
    readRows = rows.length;
    for (const row of rows) {
      seconds.add(runId, second, row);
      entry.stored.add(snapshotKey(runId, row.agentId, row.seq));
    }
  }
  const point = entry.merge.point(second);
  const health = entry.merge.health().slice(entry.healthPublished);
  const snapshots = entry.untraced.splice(0);
  const builtAt = Date.now();
  // Published before the upsert (still under the lock, so in order): the browser need not wait for the write,
  // and a write that fails is redone by finish-run's rebuild, which publishes the second again.
  await publishLive(bus, runId, { type: "point", point });
  if (health.length > 0) await publishLive(bus, runId, { type: "agent-health", t: second, agents: health });
  entry.healthPublished += health.length;
  const publishedAt = Date.now();
  await locked.upsertSecond(orgId, runId, second, point);
  into.onStages?.({
    runId,
    second,
    ...times,
    lockedAt,
    builtAt,
    publishedAt,
    upsertedAt: Date.now(),
    readRows,
    snapshots,
  });
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
 * per window. The stored snapshots are the truth: `finish-run` rebuilds every second from them, so a merge
 * lost with a crashed process costs nothing but a late point.
 */
export function createIngestService(deps: {
  repos: Repos;
  bus: Bus;
  log?: Log;
  coalesceMs?: number;
  onStages?: (stages: PointStages) => void;
  /** A snapshot was stored for a run that had already closed: it must be judged again (late-seconds.ts). */
  onLateSnapshot?: (orgId: string, runId: string) => Promise<void>;
}) {
  const { repos, bus } = deps;
  const late = deps.onLateSnapshot
    ? createLateSeconds({ listEnded: repos.runs.listEnded, onLate: deps.onLateSnapshot })
    : undefined;
  const coalesceMs = deps.coalesceMs ?? 0;
  // When stages are traced: when each snapshot's batch went to the database (keyed by snapshotKey; deleted on commit).
  const batchedAt = new Map<string, number>();
  const insertMany: typeof repos.snapshots.insertMany = !deps.onStages
    ? repos.snapshots.insertMany
    : (rows) => {
        const at = Date.now();
        for (const { runId, row } of rows) batchedAt.set(snapshotKey(runId, row.agentId, row.seq), at);
        return repos.snapshots.insertMany(rows);
      };
  const batcher = createSnapshotBatcher({ insertMany });
  const pending = new Map<string, PendingMerge>();
  const inFlight = new Set<Promise<void>>();
  const seconds = createOpenSeconds();
  const { openSecond, add } = seconds;
  const shardCache = createShardCache(repos);
  const inMergeSlot = createMergeSlots(MAX_CONCURRENT_MERGES);
  const sweep = (now: number) => seconds.sweep(now, (key) => pending.has(key));

  // One merge of a second at a time (across api instances): otherwise a merge that saw fewer snapshots can be
  // written or published after one that saw more, and the second ends short of an agent. Not durable: finish-run
  // rebuilds every second from the stored snapshots (which are), so a roll-up write lost in a PostgreSQL crash
  // costs a late point, while an fsync per merge held the second's lock (and a merge slot) for its length.
  async function merge(orgId: string, runId: string, second: number) {
    const startedAt = Date.now();
    await inMergeSlot(() => {
      const times = { startedAt, slotAt: Date.now() };
      return repos.snapshots.withSecondLocked(
        runId,
        second,
        (locked) => mergeLocked({ seconds, bus, onStages: deps.onStages }, locked, orgId, runId, second, times),
        { durable: false },
      );
    });
  }

  /**
   * Every load shard's snapshot of the second is in this process's merge: nothing more is expected, so waiting
   * out the coalescing window would only delay the point (and it delayed exactly the last, slowest snapshots).
   */
  function complete(runId: string, second: number): boolean {
    const expected = shardCache.loadShardCount(runId);
    return expected !== undefined && (seconds.get(runId, second)?.merge.count ?? 0) >= expected;
  }

  function schedule(orgId: string, runId: string, second: number) {
    const key = `${runId}:${second}`;
    const existing = pending.get(key);
    if (existing) {
      if (existing.running)
        existing.again = true; // a waiting merge will include this snapshot anyway
      else if (complete(runId, second)) existing.now?.();
      return;
    }
    const entry: PendingMerge = { running: false, again: false };
    pending.set(key, entry);
    const run = async () => {
      entry.running = true;
      entry.again = false;
      try {
        await merge(orgId, runId, second);
      } catch (err) {
        deps.log?.error({ err, runId, second }, "merging a second failed; finish-run rebuilds it");
      }
      entry.running = false;
      if (entry.again) return later();
      pending.delete(key);
    };
    const later = () => {
      const done = new Promise<void>((resolve) => {
        const fire = () => {
          clearTimeout(timer);
          entry.now = undefined;
          void run().finally(resolve);
        };
        const timer = setTimeout(fire, complete(runId, second) ? 0 : coalesceMs);
        entry.now = fire;
      });
      inFlight.add(done);
      void done.finally(() => inFlight.delete(done));
    };
    later();
  }

  return {
    async ingest(orgId: string, agentId: string, snapshot: MetricSnapshot): Promise<IngestResult> {
      const receivedAt = Date.now();
      const { runId } = snapshot;
      if (!(await shardCache.holdsShard(orgId, runId, agentId))) return "unknown-run";
      const row = storedSnapshot(agentId, snapshot);
      const key = snapshotKey(runId, agentId, row.seq);
      // Live before durable: the snapshot joins its second's merge (and the next point) now, while its batch
      // commits; the group commit's fsync was the largest stage between an agent's send and the browser
      // (docs/benchmarks.md, "Control plane"). The ack still waits for the commit. A snapshot whose insert fails
      // is not acked, so its agent sends it again; finish-run rebuilds every second from storage alone.
      const added = add(runId, row.second, row);
      const traced: TracedSnapshot | undefined = added && deps.onStages ? [agentId, receivedAt, null, null] : undefined;
      if (traced) openSecond(runId, row.second).untraced.push(traced);
      if (added && coalesceMs > 0) schedule(orgId, runId, row.second);
      const fresh = await batcher.submit({ orgId, runId, row });
      // Before the ack, fresh or not: a snapshot re-sent because its samples failed to store keeps them then.
      await keepErrorSamples(repos, orgId, runId, agentId, snapshot.errorSamples);
      await keepRooms(repos, orgId, runId, agentId, snapshot.seq, snapshot.rooms);
      // Before the ack: a run that closed meanwhile is judged again, or the agent sends this snapshot again.
      await late?.stored(orgId, runId);
      if (traced) {
        traced[2] = batchedAt.get(key) ?? receivedAt;
        traced[3] = Date.now();
      }
      batchedAt.delete(key);
      // Counted stored only while this merge holds it (a duplicate was stored before): were the open second swept and
      // opened afresh meanwhile, the count check must still find the snapshot missing and read it back.
      const entry = openSecond(runId, row.second);
      if (entry.keys.has(key)) entry.stored.add(key);
      sweep(Date.now());
      if (!fresh && !added) return "duplicate"; // stored and merged here before: no point changes
      // Merged again after the commit: a merge on another api instance that ran before it could not read this
      // snapshot, so the second's last point must come from a merge that started after every commit.
      if (coalesceMs > 0) schedule(orgId, runId, row.second);
      else await merge(orgId, runId, row.second);
      return fresh ? "stored" : "duplicate"; // a duplicate new to this process (stored by another, or before a restart)
    },

    /**
     * Waits for every coalesced merge still waiting or running (tests; a clean shutdown; an agent's end of shard,
     * which follows the acks of its snapshots, so theirs are among them).
     */
    async flush(): Promise<void> {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
export type IngestService = ReturnType<typeof createIngestService>;
