import { describe, expect, it } from "vitest";
import type { RunView } from "@throng/protocol/run";
import { ApiError, InterruptedError, ServerUnreachableError, WaitTimeoutError } from "./errors";
import { type FollowOptions, followRun, type RunProgress } from "./run-follow";
import { finishedRun } from "./testing/fixtures";

/** An API answering GET /api/runs/:id from a script of answers (a run view or an error to throw). */
function scriptedApi(script: Array<RunView | Error>) {
  let calls = 0;
  return {
    getRun: async () => {
      const next = script[Math.min(calls++, script.length - 1)]!;
      if (next instanceof Error) throw next;
      return next;
    },
    getSeries: async (runId: string) => ({ runId, points: [] }),
    calls: () => calls,
  };
}

const running = finishedRun({ status: "running", summary: null, verdict: null, endedAt: null });

/** Follows the running run through `api`, polling every millisecond for up to 10 s unless `options` say otherwise. */
function follow(api: FollowOptions["api"], options: Partial<FollowOptions> = {}): Promise<RunView> {
  return followRun({
    api,
    runId: running.id,
    timeoutMs: 10_000,
    pollMs: 1,
    signal: new AbortController().signal,
    onProgress: () => {},
    ...options,
  });
}

describe("following a run", () => {
  it("reports progress until the run ends and returns the final view", async () => {
    const api = scriptedApi([finishedRun({ status: "queued" }), running, finishedRun()]);
    const seen: RunProgress[] = [];
    const run = await follow(api, { onProgress: (p) => seen.push(p) });
    expect(run.status).toBe("finished");
    expect(seen.map((p) => p.run.status)).toEqual(["queued", "running"]);
  });

  it("rides out an unreachable server and 5xx answers, reporting the outage once", async () => {
    const down = new ServerUnreachableError("ECONNREFUSED");
    const api = scriptedApi([running, down, down, new ApiError(502, undefined, "bad gateway"), running, finishedRun()]);
    const retries: Error[] = [];
    let recovered = 0;
    const run = await follow(api, { onRetry: (error) => retries.push(error), onRecovered: () => recovered++ });
    expect(run.status).toBe("finished");
    expect(retries).toEqual([down]);
    expect(recovered).toBe(1);
  });

  it("stops at once on an answer that retrying cannot fix (a revoked token)", async () => {
    const api = scriptedApi([running, new ApiError(401, "unauthenticated", "token revoked")]);
    await expect(follow(api)).rejects.toThrow("token revoked");
  });

  it("gives up when the run outlives the timeout", async () => {
    let now = 0;
    const api = scriptedApi([running]);
    const outlived = follow(api, { timeoutMs: 5_000, now: () => (now += 1_000) });
    await expect(outlived).rejects.toThrow(WaitTimeoutError);
    await expect(outlived).rejects.toThrow(/did not end within 5 s; raise --timeout/);
  });

  it("stops waiting when interrupted", async () => {
    const interrupt = new AbortController();
    const api = scriptedApi([running]);
    const interrupted = follow(api, {
      timeoutMs: 60_000,
      pollMs: 60_000,
      signal: interrupt.signal,
      onProgress: () => interrupt.abort(),
    });
    await expect(interrupted).rejects.toThrow(InterruptedError);
  });
});
