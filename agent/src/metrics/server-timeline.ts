import type { MetricSnapshot, ServerWatchSnapshot } from "@throng/protocol/snapshot";
import { watchProcess, type ProcessWatcher } from "./process-watch";

/** One line of `run --out` when the server is watched: the load's second, and the server's same second. */
export type TimelineSecond = MetricSnapshot & { server?: ServerWatchSnapshot };

export interface ServerTimeline {
  readonly pid: number;
  /** Takes the baseline sample; call when the load starts (join starts it too, if nothing did). */
  start(): void;
  /**
   * Samples the server at the end of the load's second `load.seq` and joins the two. The sample spans from the
   * previous join (or the start) to now, so it covers the same second to within the snapshot's delivery delay.
   */
  join(load: MetricSnapshot): TimelineSecond;
  /** The samples joined so far, in order. */
  samples(): ServerWatchSnapshot[];
  /** The last load second the server was seen in (-1: gone before the load started), if it ended during the run. */
  endedAfterSeq(): number | undefined;
}

/** Puts a watched server on the load's per-second timeline (standalone `run --watch-pid`). */
export function createServerTimeline(
  pid: number,
  open: (pid: number) => ProcessWatcher = watchProcess,
): ServerTimeline {
  const samples: ServerWatchSnapshot[] = [];
  let watcher: ProcessWatcher | undefined;
  let ended: number | undefined;
  let endedBeforeStart = false;
  const start = () => {
    if (watcher || endedBeforeStart) return;
    try {
      watcher = open(pid);
    } catch {
      endedBeforeStart = true;
    }
  };
  return {
    pid,
    start,
    join(load) {
      start();
      if (endedBeforeStart) ended ??= -1;
      if (ended !== undefined || !watcher) return load;
      let sample: ServerWatchSnapshot;
      try {
        sample = watcher.sample();
      } catch {
        ended = load.seq - 1; // the process is gone: its crash is itself a result, so the run goes on and says so
        return load;
      }
      const server = { ...sample, seq: load.seq };
      samples.push(server);
      return { ...load, server };
    },
    samples: () => samples,
    endedAfterSeq: () => ended,
  };
}
