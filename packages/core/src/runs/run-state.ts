import type { RunStatus } from "@throng/protocol/run";

/** What can happen to a run. */
export type RunEvent = "prepare" | "start" | "stop" | "degrade" | "finish" | "abort" | "fail";

const transitions: Record<RunStatus, Partial<Record<RunEvent, RunStatus>>> = {
  queued: { prepare: "preparing", abort: "aborted", fail: "failed" },
  preparing: { start: "running", abort: "aborted", fail: "failed" },
  running: { stop: "stopping", degrade: "degraded", finish: "finished", abort: "aborted", fail: "failed" },
  degraded: { stop: "stopping", finish: "finished", abort: "aborted", fail: "failed" },
  stopping: { finish: "finished", abort: "aborted", fail: "failed" },
  finished: {},
  aborted: {},
  failed: {},
};

/** The pure transition function of a run's lifecycle: the next status, or null when the event does not apply. */
export function nextRunStatus(status: RunStatus, event: RunEvent): RunStatus | null {
  return transitions[status][event] ?? null;
}

export function isTerminal(status: RunStatus): boolean {
  return Object.keys(transitions[status]).length === 0;
}
