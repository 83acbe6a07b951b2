import type { MetricSnapshot } from "@throng/protocol/snapshot";

/** Ten minutes of one run at one snapshot a second, per the protocol's minimum of 600. */
export const DEFAULT_BUFFER_CAPACITY = 3_600;

/** Anything acknowledged by (run, seq): a load snapshot, or a watcher's server sample. */
export interface Numbered {
  runId: string;
  seq: number;
}

export interface SnapshotBuffer<T extends Numbered = MetricSnapshot> {
  /** Keeps a snapshot until acknowledged; returns the one dropped to make room, if any. */
  add(snapshot: T): T | undefined;
  ack(runId: string, seq: number): boolean;
  /** Unacknowledged snapshots, oldest first (the order they were built). */
  unacked(): T[];
  size(): number;
}

function keyOf(runId: string, seq: number): string {
  return `${runId}:${seq}`;
}

/** Bounded store of snapshots the server has not acknowledged yet, resent after a reconnect. */
export function createSnapshotBuffer<T extends Numbered = MetricSnapshot>(
  capacity = DEFAULT_BUFFER_CAPACITY,
): SnapshotBuffer<T> {
  if (!Number.isInteger(capacity) || capacity < 1)
    throw new Error(`buffer capacity must be a positive integer, got ${capacity}`);
  // A Map iterates in insertion order, so the first key is always the oldest snapshot.
  const entries = new Map<string, T>();

  return {
    add(snapshot) {
      const key = keyOf(snapshot.runId, snapshot.seq);
      entries.delete(key);
      entries.set(key, snapshot);
      if (entries.size <= capacity) return undefined;
      const [oldestKey, oldest] = entries.entries().next().value as [string, T];
      entries.delete(oldestKey);
      return oldest;
    },
    ack(runId, seq) {
      return entries.delete(keyOf(runId, seq));
    },
    unacked() {
      return [...entries.values()];
    },
    size() {
      return entries.size;
    },
  };
}
