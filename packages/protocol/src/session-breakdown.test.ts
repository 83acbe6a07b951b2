import { describe, expect, it } from "vitest";
import { latencyStats } from "./latency-stats.test-support";
import { BUILT_IN_LOGIN, plannedSessionSteps, sessionBreakdown, sessionStepRows, stepWords } from "./session-breakdown";

/** Figures whose p50 is half their p99. */
const stats = (p99Ms: number | null, count?: number) => latencyStats(p99Ms && p99Ms / 2, p99Ms, count);

describe("sessionBreakdown", () => {
  it("counts the session's failures by cause, most first, in words, and leaves other errors out", () => {
    const row = sessionBreakdown(3, {
      errorsByKind: { "session-timeout": 2, "session-rejected": 5, reset: 9, "http-status": 1 },
    });
    expect(row).toEqual({
      steps: 3,
      time: null,
      failures: [
        { kind: "session-rejected", count: 5, words: "the server's reply matched failWhen" },
        { kind: "session-timeout", count: 2, words: "no expected reply in time" },
        { kind: "http-status", count: 1, words: "an http step's answer had an unexpected status" },
      ],
    });
  });

  it("times a login storm's sessions and reads its failures (login-…)", () => {
    const row = sessionBreakdown(2, { latency: { login: stats(40) }, errorsByKind: { "login-session-timeout": 4 } });
    expect(row?.time?.p99Ms).toBe(40);
    expect(row?.failures).toEqual([{ kind: "login-session-timeout", count: 4, words: "no expected reply in time" }]);
  });

  it("is null without a session", () => {
    expect(sessionBreakdown(0, {})).toBeNull();
  });
});

describe("sessionStepRows", () => {
  const steps = [
    { kind: "http" as const, method: "POST", url: "http://127.0.0.1:8080/match?client={{client}}" },
    { kind: "send" as const, message: { body: "AUTH {{secrets.REDIS}}" } },
    { kind: "expect" as const, reply: { prefixHex: "2b4f4b" } },
    { kind: "wait" as const, ms: 250 },
    { kind: "expect" as const, reply: { json: { field: "type", equals: "joined" } } },
  ];

  it("gives one row per plan step in the plan's order, with what it does, its time and its failures by cause in words", () => {
    const rows = sessionStepRows(steps, {
      sessionSteps: {
        "0": { ...stats(30, 8), failures: { "http-status": 2 } },
        "1": { ...stats(0.01, 6), failures: {} },
        "2": { ...stats(4, 5), failures: { "session-rejected": 1, closed: 0 } },
        "4": { count: 0, p50Ms: null, p90Ms: null, p99Ms: null, maxMs: null, failures: { "session-timeout": 5 } },
      },
    });
    expect(rows.map((row) => row.words)).toEqual([
      "POST /match?client={{client}}",
      "sends AUTH {{secrets.REDIS}}",
      'awaits a reply starting "+OK"',
      "waits 250 ms",
      "awaits type = joined",
    ]);
    expect(rows[0]).toMatchObject({ step: 0, time: { count: 8, p99Ms: 30 } });
    expect(rows[0]?.failures).toEqual([
      { kind: "http-status", count: 2, words: "an http step's answer had an unexpected status" },
    ]);
    expect(rows[2]?.failures).toEqual([
      { kind: "session-rejected", count: 1, words: "the server's reply matched failWhen" },
    ]);
    // A step no client reached: a row of its own, not timed, no failures.
    expect(rows[3]).toMatchObject({ time: { count: 0, p50Ms: null }, failures: [] });
    expect(rows[4]?.failures).toEqual([{ kind: "session-timeout", count: 5, words: "no expected reply in time" }]);
  });

  it("has no rows for a run whose agents timed only the whole session", () => {
    expect(sessionStepRows(steps, { latency: {} } as never)).toEqual([]);
  });

  it("reads a login storm's built-in login as its two steps", () => {
    expect(BUILT_IN_LOGIN.map(stepWords)).toEqual([
      'sends {"type":"login","client":{{client}},"seq":0}',
      "awaits type = login-ok",
    ]);
  });

  it("reads a plan's own session, or a login storm's built-in login, as its planned steps", () => {
    expect(plannedSessionSteps({ kind: "ping-pong", session: steps } as never)).toBe(steps);
    expect(plannedSessionSteps({ kind: "login-storm", login: true } as never)).toBe(BUILT_IN_LOGIN);
    expect(plannedSessionSteps({ kind: "ping-pong" })).toEqual([]);
  });
});
