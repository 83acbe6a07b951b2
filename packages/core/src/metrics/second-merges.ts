import type { Repos } from "@throng/db/repos";
import type { SecondRollup } from "@throng/db/repos/snapshots";
import type { Bus, Log } from "../ports";
import { publishLive } from "../runs/live";
import type { PointStages } from "./ingest-stages";
import { snapshotKey } from "@throng/protocol/snapshot";
import type { OpenSeconds } from "./open-seconds";

interface PendingMerge {
  running: boolean;
  /** A snapshot arrived while the merge was running: merge again once it is done. */
  again: boolean;
  /** Ends the coalescing window now (set while the merge waits in it). */
  now?: () => void;
}

/**
 * Seconds merged at once. Each merge holds a pooled connection through its lock, upsert and publish; with many
 * seconds open (a backlog) unbounded merges took the whole pool and the snapshot inserts queued behind them.
 */
const MAX_CONCURRENT_MERGES = 2;

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

export interface SecondMergesDeps {
  repos: Repos;
  bus: Bus;
  log?: Log;
  /** Writes and publishes of one second are coalesced to one per window this long (0: merged at each commit). */
  coalesceMs: number;
  onStages?: (stages: PointStages) => void;
  seconds: OpenSeconds;
  /** How many snapshots a second of the run expects (its load shards), when known. */
  expectedSnapshots: (runId: string) => number | undefined;
}

/**
 * The merges of the open seconds into the roll-up and the live stream: one merge of a second at a time (across api
 * instances), at most MAX_CONCURRENT_MERGES at once, and with `coalesceMs` > 0 one per second per window.
 */
export class SecondMerges {
  private readonly pending = new Map<string, PendingMerge>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly inMergeSlot = createMergeSlots(MAX_CONCURRENT_MERGES);

  constructor(private readonly deps: SecondMergesDeps) {}

  /** A merge of this second (`runId:second`) waits or runs: its open second must not be swept. */
  isPending(key: string): boolean {
    return this.pending.has(key);
  }

  /**
   * One merge of a second at a time (across api instances): otherwise a merge that saw fewer snapshots can be
   * written or published after one that saw more, and the second ends short of an agent. Not durable: finish-run
   * rebuilds every second from the stored snapshots (which are), so a roll-up write lost in a PostgreSQL crash
   * costs a late point, while an fsync per merge held the second's lock (and a merge slot) for its length.
   */
  async merge(orgId: string, runId: string, second: number): Promise<void> {
    const { repos, seconds, bus, onStages } = this.deps;
    const startedAt = Date.now();
    await this.inMergeSlot(() => {
      const times = { startedAt, slotAt: Date.now() };
      return repos.snapshots.withSecondLocked(
        runId,
        second,
        (locked) => mergeLocked({ seconds, bus, onStages }, locked, orgId, runId, second, times),
        { durable: false },
      );
    });
  }

  /** Merges the second at the end of its coalescing window (now, when every load shard's snapshot is in). */
  schedule(orgId: string, runId: string, second: number): void {
    const key = `${runId}:${second}`;
    const existing = this.pending.get(key);
    if (existing) {
      if (existing.running)
        existing.again = true; // a waiting merge will include this snapshot anyway
      else if (this.complete(runId, second)) existing.now?.();
      return;
    }
    const entry: PendingMerge = { running: false, again: false };
    this.pending.set(key, entry);
    this.wait(entry, orgId, runId, second);
  }

  /**
   * Waits for every coalesced merge still waiting or running (tests; a clean shutdown; an agent's end of shard,
   * which follows the acks of its snapshots, so theirs are among them).
   */
  async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /**
   * Every load shard's snapshot of the second is in this process's merge: nothing more is expected, so waiting
   * out the coalescing window would only delay the point (and it delayed exactly the last, slowest snapshots).
   */
  private complete(runId: string, second: number): boolean {
    const expected = this.deps.expectedSnapshots(runId);
    return expected !== undefined && (this.deps.seconds.get(runId, second)?.merge.count ?? 0) >= expected;
  }

  /** Arms the coalescing window of a pending merge; `entry.now` ends it early. */
  private wait(entry: PendingMerge, orgId: string, runId: string, second: number): void {
    const done = new Promise<void>((resolve) => {
      const fire = () => {
        clearTimeout(timer);
        entry.now = undefined;
        void this.runPending(entry, orgId, runId, second).finally(resolve);
      };
      const timer = setTimeout(fire, this.complete(runId, second) ? 0 : this.deps.coalesceMs);
      entry.now = fire;
    });
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
  }

  /** Runs a pending merge; a snapshot that arrived meanwhile arms another window, else the second is no longer pending. */
  private async runPending(entry: PendingMerge, orgId: string, runId: string, second: number): Promise<void> {
    entry.running = true;
    entry.again = false;
    try {
      await this.merge(orgId, runId, second);
    } catch (err) {
      this.deps.log?.error({ err, runId, second }, "merging a second failed; finish-run rebuilds it");
    }
    entry.running = false;
    if (entry.again) return this.wait(entry, orgId, runId, second);
    this.pending.delete(`${runId}:${second}`);
  }
}
