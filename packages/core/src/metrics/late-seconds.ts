/** A run asked about again within this long is not reported late again: its judgement again waits a window anyway. */
const REPORT_AGAIN_AFTER_MS = 1_000;

/**
 * Tells ingest, after a snapshot's batch has committed, whether its run had already closed, and reports each such
 * run (at most once a second) so it is judged again. The checks of one tick go to the database as one query per
 * organisation. After the commit, never before: a close that commits later counts the run's snapshots after it
 * (run-orchestrator's judgeAgainIfLate), so a snapshot stored around a close is judged by one or the other.
 */
export function createLateSeconds(deps: {
  listEnded: (orgId: string, runIds: readonly string[]) => Promise<string[]>;
  onLate: (orgId: string, runId: string) => Promise<void>;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  let waiting = new Map<string, Map<string, { resolve: (ended: boolean) => void; reject: (err: unknown) => void }[]>>();
  let scheduled = false;
  /** Each run reported lately: when, and its report (awaited by the snapshots of the same window, so none is acked before it). */
  const reported = new Map<string, { at: number; done: Promise<void> }>();

  async function flush(batch: typeof waiting) {
    for (const [orgId, runs] of batch) {
      try {
        const ended = new Set(await deps.listEnded(orgId, [...runs.keys()]));
        for (const [runId, waiters] of runs) for (const w of waiters) w.resolve(ended.has(runId));
      } catch (err) {
        for (const waiters of runs.values()) for (const w of waiters) w.reject(err);
      }
    }
  }

  function ended(orgId: string, runId: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const runs = waiting.get(orgId) ?? new Map();
      waiting.set(orgId, runs);
      runs.set(runId, [...(runs.get(runId) ?? []), { resolve, reject }]);
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        const batch = waiting;
        waiting = new Map();
        void flush(batch);
      });
    });
  }

  return {
    /** Resolves once a stored snapshot's run is known to be open, or reported for judging again. */
    async stored(orgId: string, runId: string): Promise<void> {
      if (!(await ended(orgId, runId))) return;
      const at = now();
      const last = reported.get(runId);
      if (last && at - last.at < REPORT_AGAIN_AFTER_MS) return last.done;
      for (const [id, report] of reported) if (at - report.at > 60_000) reported.delete(id);
      const done = deps.onLate(orgId, runId);
      reported.set(runId, { at, done });
      try {
        await done;
      } catch (err) {
        reported.delete(runId); // the snapshot is not acked: its resend reports the run again
        throw err;
      }
    },
  };
}
