import type { RunAssignment } from "@throng/protocol/agent";
import { offsetClock, waitUntil } from "./clock";
import type { RunShardOptions, ShardResult } from "./run-shard";
import { watchProcess, type ProcessWatcher } from "../metrics/process-watch";

const SECOND_MS = 1_000;
/** A start this close to startAt counts as on time (timers fire a little late); the load's engine uses the same. */
const ON_TIME_TOLERANCE_MS = 50;

/**
 * A watcher's shard (PROTOCOL.md §11): from the run's startAt to its planned end (server clock), one sample of the
 * watched process per second on the startAt + k s grid, so sample `seq` k covers the same second as every load
 * agent's snapshot k. The process exiting mid-run fails the shard with a message saying so.
 */
export function createWatchShard(
  pid: number,
  open: (pid: number, clock: () => number) => ProcessWatcher = (p, clock) => watchProcess(p, "/proc", clock),
) {
  return async function watchShard(assignment: RunAssignment, options: RunShardOptions): Promise<ShardResult> {
    const clock = options.clock ?? offsetClock(0);
    const { startAt, runId } = assignment;
    const endAt = startAt + assignment.plan.load.durationSec * SECOND_MS;
    if (await waitUntil(clock, startAt, options.signal)) return { lastSeq: -1, skipped: "aborted" };
    if (clock.now() >= endAt) return { lastSeq: -1, skipped: "expired" };
    // Joined late (a reconnect mid-run): begin at the next whole second of the grid.
    const late = clock.now() - startAt;
    let seq = late < ON_TIME_TOLERANCE_MS ? 0 : Math.ceil(late / SECOND_MS);
    if (seq > 0 && (await waitUntil(clock, startAt + seq * SECOND_MS, options.signal)))
      return { lastSeq: -1, skipped: "aborted" };
    let watcher: ProcessWatcher;
    try {
      watcher = open(pid, () => clock.now());
    } catch {
      throw new Error(`the watched process (pid ${pid}) is gone: nothing to watch on ${assignment.plan.name}`);
    }
    options.onStart?.();
    let lastSeq = -1;
    // Bounded: every pass moves one second forward, to endAt or the abort.
    for (;;) {
      const intervalStart = startAt + seq * SECOND_MS;
      const boundary = Math.min(intervalStart + SECOND_MS, endAt);
      const aborted = await waitUntil(clock, boundary, options.signal);
      let sample: ReturnType<typeof watcher.sample>;
      try {
        sample = watcher.sample();
      } catch {
        throw new Error(
          `the watched process (pid ${pid}) exited during the run${lastSeq >= 0 ? `, after second ${lastSeq + 1}` : ""}`,
        );
      }
      // Stamped with the grid second, like the load's snapshots; intervalMs stays what was measured.
      options.onServerSample?.({ ...sample, runId, seq, intervalStart });
      lastSeq = seq;
      seq += 1;
      if (aborted || boundary >= endAt) break;
    }
    return { lastSeq };
  };
}
