import { describe, expect, it } from "vitest";
import { PlanSpec, type PlanSpecInput } from "./plan";
import { planInput, planIssues } from "./plan-spec.test-support";
import type { RunSummary } from "./run";
import type { LatencyStats, SeriesPoint } from "./snapshot";
import { runSummary } from "./run-summary.test-support";
import { idleSeriesPoint } from "./series-point.test-support";
import { judgeSlos, measuredOfPoint, measuredOfSummary } from "./slo-judge";

const scriptPlan = (slos: PlanSpecInput["slos"], scenario: Partial<PlanSpecInput["scenario"]> = {}): PlanSpecInput =>
  planInput({
    load: { clients: 1, durationSec: 10 },
    slos,
    scenario: {
      kind: "script",
      script: { path: "room.mjs" },
      metrics: [
        { name: "join-ms", kind: "histogram" },
        { name: "desyncs", kind: "counter" },
      ],
      ...scenario,
    } as PlanSpecInput["scenario"],
  });

/** The script plan with an SLO (below 100) on each metric named, for the schema's checks of the names. */
const sloPlan = (...metrics: string[]): PlanSpecInput =>
  scriptPlan(metrics.map((metric) => ({ metric, below: 100 })) as PlanSpecInput["slos"]);

const stats = (count: number, p50Ms: number | null, p99Ms: number | null): LatencyStats => ({
  count,
  p50Ms,
  p90Ms: null,
  p99Ms,
  maxMs: p99Ms,
});

/** A second of a script run with four clients: only the script's own figures measured. */
const point = (t: number, figures: Pick<SeriesPoint, "script" | "scriptCounts">): SeriesPoint =>
  idleSeriesPoint({ t, clients: 4, connections: 4, ...figures });

/** A three-second script run's summary with four clients, its own figures set by the test. */
const summary = (figures: Pick<RunSummary, "script" | "scriptCounts">): RunSummary =>
  runSummary({ peakClients: 4, peakConnections: 4, durationSec: 3, ...figures });

describe("SLOs on a script's metrics", () => {
  it("takes script:NAME-p50, -p99 and -count in the schema and refuses any other script: name there", () => {
    expect(PlanSpec.safeParse(sloPlan("script:join-ms-p99", "script:desyncs-count")).success).toBe(true);
    const parsed = PlanSpec.safeParse(scriptPlan([{ metric: "script:join-ms-p90", below: 100 } as never]));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["slos", 0, "metric"]);
  });

  it("refuses an SLO on a script metric the plan does not declare, or declares as the other kind, naming the field", () => {
    expect(planIssues(sloPlan("script:join-ms-p99", "script:desyncs-count"))).toEqual([]);
    expect(planIssues(sloPlan("rtt-p99-ms", "script:leave-ms-p99"))).toEqual([
      'slos.1.metric: script:leave-ms-p99: the plan declares no script metric "leave-ms": add { name: "leave-ms", kind: "histogram" } to scenario.metrics',
    ]);
    expect(planIssues(sloPlan("script:join-ms-count", "script:desyncs-p50"))).toEqual([
      'slos.0.metric: script:join-ms-count: "join-ms" is declared a histogram; -count needs a counter',
      'slos.1.metric: script:desyncs-p50: "desyncs" is declared a counter; -p50 needs a histogram',
    ]);
    expect(planIssues(scriptPlan([{ metric: "script:join-ms-p99", below: 100 }], { metrics: undefined }))[0]).toMatch(
      /^slos\.0\.metric: /,
    );
  });

  it("refuses a script metric's SLO on a plan that runs no script", () => {
    const spec: PlanSpecInput = {
      ...scriptPlan([{ metric: "script:join-ms-p99", below: 100 }]),
      scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
    };
    expect(planIssues(spec)).toEqual([
      "slos.0.metric: script:join-ms-p99: a script's metrics are measured only by script plans",
    ]);
  });

  it("judges a script histogram's percentiles over the run: met, breached, and no data when it holds no samples", () => {
    const seconds = [
      point(1, { script: { "join-ms": stats(5, 4, 9) } }),
      point(2, { script: { "join-ms": stats(5, 6, 30) } }),
    ];
    const whole = measuredOfSummary(summary({ script: { "join-ms": stats(10, 5, 25) } }));
    const [p50, p99] = judgeSlos(
      [
        { metric: "script:join-ms-p50", below: 10 },
        { metric: "script:join-ms-p99", below: 20 },
      ],
      whole,
      seconds,
      seconds,
    );
    expect(p50).toMatchObject({ status: "met", passed: true, value: 5, measuredSeconds: 2, breachedSeconds: 0 });
    expect(p99).toMatchObject({
      status: "breached",
      passed: false,
      value: 25,
      measuredSeconds: 2,
      breachedSeconds: 1,
      firstBreachAt: 2,
    });

    const empty = measuredOfSummary(summary({ script: { "join-ms": stats(0, null, null) } }));
    const [none] = judgeSlos([{ metric: "script:join-ms-p99", below: 20 }], empty, [
      point(1, { script: { "join-ms": stats(0, null, null) } }),
    ]);
    expect(none).toMatchObject({
      status: "no-data",
      passed: false,
      value: null,
      note: 'the script recorded no "join-ms" measurement',
    });
  });

  it("judges a counter by its total, and its seconds by the running total", () => {
    const seconds = [
      point(1, { scriptCounts: { desyncs: 0 } }),
      point(2, { scriptCounts: { desyncs: 2 } }),
      point(3, { scriptCounts: { desyncs: 1 } }),
    ];
    const [breached] = judgeSlos(
      [{ metric: "script:desyncs-count", below: 3 }],
      measuredOfSummary(summary({ scriptCounts: { desyncs: 3 } })),
      seconds,
    );
    expect(breached).toMatchObject({
      status: "breached",
      value: 3,
      measuredSeconds: 3,
      breachedSeconds: 1,
      firstBreachAt: 3,
    });
    const [met] = judgeSlos(
      [{ metric: "script:desyncs-count", below: 1 }],
      measuredOfSummary(summary({ scriptCounts: { desyncs: 0 } })),
      [seconds[0]!],
    );
    expect(met).toMatchObject({ status: "met", passed: true, value: 0 });
    const [none] = judgeSlos([{ metric: "script:desyncs-count", below: 1 }], measuredOfSummary(summary({})), []);
    expect(none).toMatchObject({ status: "no-data", note: 'the script never reported its "desyncs" counter' });
  });

  it("never counts a second without a script measurement as a gap (a script measures when its code says)", () => {
    const seconds = [1, 2, 3, 4, 5, 6].map((t) => point(t, t === 1 ? { script: { "join-ms": stats(4, 3, 5) } } : {}));
    const [verdict] = judgeSlos(
      [{ metric: "script:join-ms-p99", below: 20 }],
      measuredOfPoint(seconds[0]!),
      seconds,
      seconds,
    );
    expect(verdict).toMatchObject({ status: "met", measuredSeconds: 1 });
  });
});
