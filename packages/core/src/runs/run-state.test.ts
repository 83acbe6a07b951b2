import { describe, expect, it } from "vitest";
import { RunStatus } from "@throng/protocol/run";
import { isTerminal, nextRunStatus, type RunEvent } from "./run-state";

const events: RunEvent[] = ["prepare", "start", "stop", "degrade", "finish", "abort", "fail"];

// Every (status, event) pair, written out, so a change to the machine must change this table too.
const expected: Record<RunStatus, Record<RunEvent, RunStatus | null>> = {
  queued: {
    prepare: "preparing",
    start: null,
    stop: null,
    degrade: null,
    finish: null,
    abort: "aborted",
    fail: "failed",
  },
  preparing: {
    prepare: null,
    start: "running",
    stop: null,
    degrade: null,
    finish: null,
    abort: "aborted",
    fail: "failed",
  },
  running: {
    prepare: null,
    start: null,
    stop: "stopping",
    degrade: "degraded",
    finish: "finished",
    abort: "aborted",
    fail: "failed",
  },
  degraded: {
    prepare: null,
    start: null,
    stop: "stopping",
    degrade: null,
    finish: "finished",
    abort: "aborted",
    fail: "failed",
  },
  stopping: {
    prepare: null,
    start: null,
    stop: null,
    degrade: null,
    finish: "finished",
    abort: "aborted",
    fail: "failed",
  },
  finished: { prepare: null, start: null, stop: null, degrade: null, finish: null, abort: null, fail: null },
  aborted: { prepare: null, start: null, stop: null, degrade: null, finish: null, abort: null, fail: null },
  failed: { prepare: null, start: null, stop: null, degrade: null, finish: null, abort: null, fail: null },
};

describe("run lifecycle (run-state)", () => {
  for (const status of RunStatus.options) {
    for (const event of events) {
      it(`${status} + ${event} → ${expected[status][event] ?? "refused"}`, () => {
        expect(nextRunStatus(status, event)).toBe(expected[status][event]);
      });
    }
  }

  it("every non-terminal status can reach a terminal one, so no run hangs", () => {
    for (const status of RunStatus.options) {
      if (isTerminal(status)) continue;
      const next = nextRunStatus(status, "fail");
      expect(next && isTerminal(next)).toBe(true);
    }
  });

  it("only finished, aborted and failed are terminal", () => {
    expect(RunStatus.options.filter(isTerminal)).toEqual(["finished", "aborted", "failed"]);
  });
});
