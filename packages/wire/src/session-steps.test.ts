import { describe, expect, it } from "vitest";
import type { SessionStepFailures, StoredSnapshot } from "@throng/protocol/snapshot";
import { mergeSecond, summariseRun } from "./run-summary";
import { namedSecond } from "./stored-second.test-support";

/** An agent's second of a session's steps: each step's times (µs) and failures, stored as ingest stores them. */
const row = (
  agentId: string,
  second: number,
  steps: Record<string, number[]>,
  sessionStepFailures?: SessionStepFailures,
): StoredSnapshot =>
  namedSecond(agentId, second, "sessionSteps", steps, sessionStepFailures ? { sessionStepFailures } : {});

describe("merging a session's per-step times and failures", () => {
  it("merges each step's histograms across agents and seconds (percentiles of the merge, never averaged) and sums failures by cause", () => {
    // Step 1 on agent a: 99 replies at 1 ms; on agent b: one at 80 ms. Averaging the agents' p99s would give ~40 ms.
    const rows = [
      row("a", 1, { "0": [10, 10], "1": Array(50).fill(1_000) }),
      row("a", 2, { "1": Array(49).fill(1_000) }, { "1": { "session-timeout": 2 } }),
      row("b", 2, { "1": [80_000] }, { "1": { "session-timeout": 1, closed: 1 }, "2": { "session-rejected": 3 } }),
    ];
    const summary = summariseRun(rows);
    const step1 = summary.sessionSteps?.["1"];
    expect(step1?.count).toBe(100);
    expect(step1?.p99Ms).toBeCloseTo(1, 1);
    expect(step1?.maxMs).toBeCloseTo(80, 0);
    expect(step1?.failures).toEqual({ "session-timeout": 3, closed: 1 });
    expect(summary.sessionSteps?.["0"]).toMatchObject({ count: 2, failures: {} });
    // A step that only failed has a row too: no time, its failures.
    expect(summary.sessionSteps?.["2"]).toEqual({
      count: 0,
      p50Ms: null,
      p90Ms: null,
      p99Ms: null,
      maxMs: null,
      failures: { "session-rejected": 3 },
    });
  });

  it("leaves the per-step figures out of each second's point (the run's summary and a range's carry them)", () => {
    expect(mergeSecond(1, [row("a", 1, { "0": [10] })])).not.toHaveProperty("sessionSteps");
  });

  it("has no sessionSteps for a run without a session", () => {
    expect(summariseRun([row("a", 1, {})])).not.toHaveProperty("sessionSteps");
  });
});
