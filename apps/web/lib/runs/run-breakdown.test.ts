import { describe, expect, it } from "vitest";
import { scriptCounterRows, scriptMetricRows, sessionBreakdown } from "./run-breakdown";

const stats = (p99Ms: number | null, count = 10) => ({
  count,
  p50Ms: p99Ms && p99Ms / 2,
  p90Ms: p99Ms,
  p99Ms,
  maxMs: p99Ms,
});

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

describe("script metric rows", () => {
  it("puts the slowest p99 first and counters by total", () => {
    expect(
      scriptMetricRows({ script: { fast: stats(2), slow: stats(90), none: stats(null, 0) } }).map((row) => row.name),
    ).toEqual(["slow", "fast", "none"]);
    expect(scriptCounterRows({ scriptCounts: { a: 1, b: 7 } })).toEqual([
      { name: "b", total: 7 },
      { name: "a", total: 1 },
    ]);
  });
});
