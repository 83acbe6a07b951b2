import { describe, expect, it } from "vitest";
import { changeText, compareWithBaseline, comparedMetrics, type ComparedRun } from "./baseline-compare";
import { p99Comparison } from "./metric-comparison.test-support";
import type { RunSummary } from "./run";
import { runSummary } from "./run-summary.test-support";
import { seriesPoint } from "./series-point.test-support";
import type { SeriesPoint } from "./snapshot";

const pingPong = {
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
} as unknown as ComparedRun["spec"];

/** A 10-second run's summary: 1,000 messages each way, `errors` of them failed, round trips around `p99`. */
const summary = (p99: number, errors = 0): RunSummary =>
  runSummary({
    messagesSent: 1000,
    messagesReceived: 1000,
    errors,
    rttP50Ms: p99 / 2,
    rttP99Ms: p99,
    rttMaxMs: p99 * 2,
  });

/** Ten steady seconds whose p99 is `p99` ± `wobble`. */
const seconds = (p99: number, wobble: number): SeriesPoint[] =>
  Array.from({ length: 10 }, (_, i) =>
    seriesPoint({
      t: 1_000 + i,
      rttP50Ms: p99 / 2,
      rttP99Ms: p99 + (i % 2 === 0 ? wobble : -wobble),
      rttMaxMs: p99 * 2,
    }),
  );

const run = (id: string, p99: number, wobble: number, errors = 0, spec = pingPong): ComparedRun => ({
  id,
  spec,
  summary: summary(p99, errors),
  series: seconds(p99, wobble),
});
const metric = (comparison: ReturnType<typeof compareWithBaseline>, id: string) =>
  comparison.metrics.find((m) => m.metric === id)!;

describe("a run against its baseline", () => {
  it("compares the scenario's own figures, the plan's SLOs and the error rate", () => {
    expect(comparedMetrics(pingPong)).toEqual(["rtt-p50-ms", "rtt-p99-ms", "error-rate"]);
    const movement = {
      scenario: { kind: "movement-sync" },
      slos: [{ metric: "connect-p99-ms", below: 100 }],
    } as unknown as ComparedRun["spec"];
    expect(comparedMetrics(movement)).toEqual(["broadcast-p99-ms", "loss-rate", "connect-p99-ms", "error-rate"]);
    expect(
      comparedMetrics({ scenario: { kind: "login-storm" } } as unknown as ComparedRun["spec"], [
        { metric: "script:join-ms-p99", limit: 5, unit: "%" },
      ]),
    ).toEqual(["connect-p99-ms", "login-p99-ms", "error-rate", "script:join-ms-p99"]);
  });

  it("says a p99 50% up from steady seconds regressed past a 10% allowance, and names it", () => {
    const comparison = compareWithBaseline(run("new", 30, 0.5), run("base", 20, 0.5), [
      { metric: "rtt-p99-ms", limit: 10, unit: "%" },
    ]);
    expect(comparison).toMatchObject({ runId: "new", baselineRunId: "base", outcome: "regressed" });
    expect(metric(comparison, "rtt-p99-ms")).toEqual(p99Comparison());
    // Not held to an allowance, p50 is only worse.
    expect(metric(comparison, "rtt-p50-ms")).toMatchObject({ change: 50, allowance: null, status: "worse" });
  });

  it("holds a change within its allowance, and a change inside the runs' own second-to-second spread is noise, not a regression", () => {
    expect(
      compareWithBaseline(run("new", 21, 0.2), run("base", 20, 0.2), [{ metric: "rtt-p99-ms", limit: 10, unit: "%" }]),
    ).toMatchObject({ outcome: "held" });
    // 20 → 30 ms, but the baseline's seconds swing ±10 ms: that says nothing about the server.
    const noisy = compareWithBaseline(run("new", 30, 0.5), run("base", 20, 10), [
      { metric: "rtt-p99-ms", limit: 10, unit: "%" },
    ]);
    expect(noisy.outcome).toBe("held");
    expect(metric(noisy, "rtt-p99-ms")).toMatchObject({ change: 50, withinNoise: true, status: "within-noise" });
  });

  it("measures rates in percentage points: 0.2% → 1.2% errors is +1 pp, past a 0.5 pp allowance", () => {
    const comparison = compareWithBaseline(run("new", 20, 0.1, 12), run("base", 20, 0.1, 2), [
      { metric: "error-rate", limit: 0.5, unit: "pp" },
    ]);
    expect(metric(comparison, "error-rate")).toMatchObject({ unit: "pp", status: "regressed" });
    expect(metric(comparison, "error-rate").change).toBeCloseTo(1, 1);
    expect(
      compareWithBaseline(run("new", 20, 0.1, 4), run("base", 20, 0.1, 2), [
        { metric: "error-rate", limit: 0.5, unit: "pp" },
      ]).outcome,
    ).toBe("held");
  });

  it("calls a better run better, and an up-from-zero figure past any percent allowance", () => {
    const better = compareWithBaseline(run("new", 10, 0.1), run("base", 20, 0.1), [
      { metric: "rtt-p99-ms", limit: 0, unit: "%" },
    ]);
    expect(better.outcome).toBe("held");
    expect(metric(better, "rtt-p99-ms")).toMatchObject({ change: -50, status: "better" });
    const fromZero = compareWithBaseline(run("new", 5, 0), run("base", 0, 0), [
      { metric: "rtt-p99-ms", limit: 10, unit: "%" },
    ]);
    expect(metric(fromZero, "rtt-p99-ms")).toMatchObject({ change: null, status: "regressed" });
    expect(changeText(metric(fromZero, "rtt-p99-ms"))).toBe("up from 0");
  });

  it("is incomplete, never held, when a metric held to an allowance was not measured by either run", () => {
    const comparison = compareWithBaseline(run("new", 20, 0.1), run("base", 20, 0.1), [
      { metric: "broadcast-p99-ms", limit: 10, unit: "%" },
    ]);
    expect(comparison.outcome).toBe("incomplete");
    expect(metric(comparison, "broadcast-p99-ms")).toMatchObject({ baseline: null, value: null, status: "no-data" });
    expect(
      compareWithBaseline({ ...run("new", 20, 0.1), summary: null }, run("base", 20, 0.1), [
        { metric: "rtt-p99-ms", limit: 10, unit: "%" },
      ]).outcome,
    ).toBe("incomplete");
  });

  it("says a change as a CI log reads it", () => {
    expect(changeText({ change: 51.9, unit: "%", baseline: 1, value: 2 })).toBe("+51.9%");
    expect(changeText({ change: -0.3, unit: "pp", baseline: 1, value: 2 })).toBe("−0.3 pp");
    expect(changeText({ change: 0, unit: "%", baseline: 1, value: 1 })).toBe("no change");
    expect(changeText({ change: null, unit: "%", baseline: null, value: 1 })).toBe("no data");
  });
});
