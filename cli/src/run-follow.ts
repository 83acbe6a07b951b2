import { setTimeout as sleep } from "node:timers/promises";
import { TERMINAL_RUN_STATUSES, type RunView } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import type { ApiClient } from "./api-client";
import { ApiError, InterruptedError, ServerUnreachableError, WaitTimeoutError } from "./errors";

/** What the follow loop reports about once a second. */
export interface RunProgress {
  run: RunView;
  /** The newest merged second, once the run has one. */
  point: SeriesPoint | undefined;
}

export interface FollowOptions {
  api: Pick<ApiClient, "getRun" | "getSeries">;
  runId: string;
  /** Give up (WaitTimeoutError) when the run has not ended this long after following began. */
  timeoutMs: number;
  signal: AbortSignal;
  onProgress(progress: RunProgress): void;
  /** A request failed in a way worth retrying; called once per failure streak. */
  onRetry?(error: Error): void;
  /** Called when requests succeed again after a failure streak. */
  onRecovered?(): void;
  pollMs?: number;
  now?: () => number;
}

/** Statuses in which the agents are sending seconds worth showing. */
const LOADED = new Set(["running", "stopping", "degraded"]);

/** Errors that say nothing about the run: the API restarting, a proxy hiccup, a rate limit. */
function isTransient(error: unknown): boolean {
  if (error instanceof ServerUnreachableError) return true;
  return error instanceof ApiError && (error.status >= 500 || error.status === 429);
}

/**
 * Follows a run until it ends by polling GET /api/runs/:id once a second, plus its series while it is
 * loaded. Polling (instead of the live SSE stream) needs no reconnect or resync logic: each poll stands on
 * its own, works against any API instance, and an outage simply means a few missed polls. The series is
 * fetched whole, which is fine for CI-sized runs (minutes, a few hundred points).
 */
export async function followRun(options: FollowOptions): Promise<RunView> {
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 1000;
  const deadline = now() + options.timeoutMs;
  let failing = false;
  let lastError: Error | undefined;
  while (true) {
    if (options.signal.aborted) throw new InterruptedError("interrupted");
    try {
      const run = await options.api.getRun(options.runId);
      if (TERMINAL_RUN_STATUSES.includes(run.status)) return run;
      const point = LOADED.has(run.status) ? (await options.api.getSeries(options.runId)).points.at(-1) : undefined;
      if (failing) options.onRecovered?.();
      failing = false;
      options.onProgress({ run, point });
    } catch (error) {
      if (!isTransient(error)) throw error;
      lastError = error as Error;
      if (!failing) options.onRetry?.(lastError);
      failing = true;
    }
    if (now() >= deadline) {
      const why = failing && lastError ? ` (last error: ${lastError.message})` : "";
      throw new WaitTimeoutError(
        `run ${options.runId} did not end within ${Math.round(options.timeoutMs / 1000)} s${why}; raise --timeout if the plan needs longer`,
      );
    }
    try {
      await sleep(Math.min(pollMs, Math.max(0, deadline - now())), undefined, { signal: options.signal });
    } catch {
      throw new InterruptedError("interrupted");
    }
  }
}

/** How long `--wait` waits by default: the plan's length plus room to queue, prepare and close the run. */
export function defaultTimeoutSec(spec: { load: { durationSec: number; rampUpSec?: number } }): number {
  return spec.load.durationSec + (spec.load.rampUpSec ?? 0) + 120;
}
