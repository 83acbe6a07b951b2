import { describe, expect, it } from "vitest";
import type { RunView } from "@throng/protocol/run";
import { notificationBody, notificationText, runDidNotPass } from "./notification-message";

const run = (overrides: Partial<RunView>): RunView =>
  ({
    id: "7f1c2f5e-8b1a-4e0e-9d1e-5a3c2b1a0f9e",
    planId: "7f1c2f5e-8b1a-4e0e-9d1e-5a3c2b1a0f9f",
    planName: "lobby",
    planVersion: 1,
    status: "finished",
    spec: {} as RunView["spec"],
    error: null,
    createdAt: "",
    startedAt: null,
    endedAt: null,
    summary: null,
    verdict: null,
    capacity: null,
    events: [],
    ...overrides,
  }) as RunView;
const verdict = (passed: boolean, reasons: string[] = []) =>
  ({ passed, outcome: passed ? "passed" : "failed", reasons, warnings: [], slos: [] }) as unknown as RunView["verdict"];

describe("what a notification says", () => {
  it("counts a run as not passing unless it finished with a passing verdict", () => {
    expect(runDidNotPass(run({ status: "finished", verdict: verdict(true) }))).toBe(false);
    expect(runDidNotPass(run({ status: "finished", verdict: verdict(false) }))).toBe(true);
    expect(runDidNotPass(run({ status: "finished", verdict: null }))).toBe(true);
    expect(runDidNotPass(run({ status: "aborted" }))).toBe(true);
  });

  it("names the plan, how the run ended, the first reason and the link", () => {
    expect(notificationText(run({ verdict: verdict(true) }), "http://d/runs/1")).toBe(
      'Run of "lobby" passed. http://d/runs/1',
    );
    expect(notificationText(run({ verdict: verdict(false, ["p99 over 20 ms for 12 s"]) }), "u")).toBe(
      'Run of "lobby" finished, failed: p99 over 20 ms for 12 s. u',
    );
    expect(notificationText(run({ status: "aborted" }), "u")).toBe('Run of "lobby" aborted. u');
  });

  it("gives Slack only { text } and a webhook the run's fields as well", () => {
    expect(notificationBody("slack", run({ verdict: verdict(true) }), "u")).toEqual({
      text: 'Run of "lobby" passed. u',
    });
    expect(notificationBody("webhook", null, "u")).toMatchObject({ event: "test", run: null });
    expect(notificationBody("webhook", run({ status: "failed", error: "no agent" }), "u")).toMatchObject({
      event: "run-ended",
      run: { status: "failed", outcome: null, error: "no agent", url: "u" },
    });
  });
});
