import { snapshotKey } from "@throng/protocol/snapshot";
import type { SnapshotRow } from "@throng/db/repos/snapshots";
import { createMerge, type Merge } from "@throng/wire/snapshot-merge";
import type { TracedSnapshot } from "./ingest-stages";

/** One second of a run as far as this process has merged it: each snapshot is added once. */
export interface OpenSecond {
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

/** An open second not added to for this long is dropped; a late snapshot for it re-reads it once from storage. */
const OPEN_SECOND_TTL_MS = 60_000;

/** The seconds this process is merging, each snapshot added once; dropped after OPEN_SECOND_TTL_MS untouched. */
export function createOpenSeconds() {
  const open = new Map<string, OpenSecond>();
  let lastSweep = Date.now();

  function openSecond(runId: string, second: number): OpenSecond {
    const key = `${runId}:${second}`;
    const existing = open.get(key);
    if (existing) return existing;
    const entry: OpenSecond = {
      merge: createMerge(),
      keys: new Set(),
      stored: new Set(),
      lastAddedAt: Date.now(),
      healthPublished: 0,
      untraced: [],
    };
    open.set(key, entry);
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

export type OpenSeconds = ReturnType<typeof createOpenSeconds>;
