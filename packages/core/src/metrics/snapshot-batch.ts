import { snapshotKey } from "@throng/protocol/snapshot";
import type { SnapshotRow } from "@throng/db/repos/snapshots";

export interface PendingSnapshot {
  orgId: string;
  runId: string;
  row: SnapshotRow;
}

interface Entry {
  item: PendingSnapshot;
  key: string;
  resolve: (stored: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for snapshots: while a multi-row INSERT is on its way to disk the next snapshots gather, then go
 * in one statement (one round trip, one fsync for hundreds). `submit` resolves only once the row's batch has
 * committed — true when stored now, false when (run, agent, seq) was stored before — so an ack that follows
 * it still means durable. A batch that fails is retried row by row, so one bad row cannot fail its neighbours;
 * a row that still fails rejects (and is never acknowledged).
 */
export function createSnapshotBatcher(deps: {
  insertMany: (rows: readonly PendingSnapshot[]) => Promise<Set<string>>;
  /** Rows per statement; PostgreSQL allows 65,535 parameters (11 a row). */
  maxRows?: number;
  /** Statements in flight at once: one committing while the next fills keeps the disk busy without a queue per row. */
  maxInFlight?: number;
}) {
  const maxRows = deps.maxRows ?? 1000;
  const maxInFlight = deps.maxInFlight ?? 2;
  let waiting: Entry[] = [];
  let inFlight = 0;
  let scheduled = false;

  async function write(batch: Entry[]): Promise<void> {
    // The same snapshot twice in one batch (an agent re-sent it): written once, the later copy is a duplicate.
    const firsts = new Map<string, Entry>();
    const repeats: Entry[] = [];
    for (const entry of batch) {
      if (firsts.has(entry.key)) repeats.push(entry);
      else firsts.set(entry.key, entry);
    }
    const outcomes = new Map<string, Promise<boolean>>();
    const written = deps.insertMany([...firsts.values()].map((entry) => entry.item));
    const ok = await written.then(
      () => true,
      () => false,
    );
    for (const [key, entry] of firsts) {
      let outcome: Promise<boolean>;
      if (ok || firsts.size === 1) outcome = written.then((stored) => stored.has(key));
      else outcome = deps.insertMany([entry.item]).then((stored) => stored.has(key)); // isolate the bad row
      outcomes.set(key, outcome);
      outcome.then(entry.resolve, entry.reject);
      if (!ok) await outcome.catch(() => undefined);
    }
    for (const entry of repeats) outcomes.get(entry.key)!.then(() => entry.resolve(false), entry.reject);
  }

  function pump(): void {
    while (waiting.length > 0 && inFlight < maxInFlight) {
      const batch = waiting.slice(0, maxRows);
      waiting = waiting.slice(maxRows);
      inFlight += 1;
      void write(batch).finally(() => {
        inFlight -= 1;
        if (waiting.length > 0) schedule();
      });
    }
  }

  // Flush after the current burst of socket reads has been handled, so one statement carries all of it.
  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }

  return {
    submit(item: PendingSnapshot): Promise<boolean> {
      return new Promise<boolean>((resolve, reject) => {
        waiting.push({ item, key: snapshotKey(item.runId, item.row.agentId, item.row.seq), resolve, reject });
        schedule();
      });
    },
  };
}
export type SnapshotBatcher = ReturnType<typeof createSnapshotBatcher>;
