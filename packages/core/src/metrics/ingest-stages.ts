/**
 * When one live point of a second was merged, stored and published, and which snapshots it was the first to
 * carry, each with when ingest received it and when its batch committed (ms since the epoch). Ingest reports
 * these only when asked (`onStages`; the api logs them at debug level), so the control-plane bench can show
 * where a snapshot's time from agent to browser goes rather than guess it.
 */
export interface PointStages {
  runId: string;
  second: number;
  /** The coalescing window ended and the merge asked for a slot. */
  startedAt: number;
  /** A merge slot was free (at most two seconds merge at once). */
  slotAt: number;
  /** The second's advisory lock was held (a pooled connection, its transaction begun). */
  lockedAt: number;
  /** The point was built (after the count check and any read of snapshots this process lacked). */
  builtAt: number;
  /** The point and the new agents' health were handed to Redis. */
  publishedAt: number;
  /** The roll-up row was written, after the publish (its transaction then commits). */
  upsertedAt: number;
  /** Snapshots of the second read from storage because this process's merge lacked them. */
  readRows: number;
  /** The snapshots this point carried first. */
  snapshots: TracedSnapshot[];
}

/**
 * [agentId, receivedAt, batchedAt (its INSERT sent), committedAt]. A snapshot joins the merge when received, so a
 * point can carry it before its batch was sent or committed: those are null then (the commit is off the live path).
 */
export type TracedSnapshot = [string, number, number | null, number | null];
