import { describe, expect, it } from "vitest";
import { Slo } from "./plan";
import {
  BUILTIN_SLO_METRICS,
  firstSloMetric,
  inChartUnit,
  measuredSloMetrics,
  SLO_METRICS,
  sloMetricProblem,
  sloMetricSpec,
  type BuiltinSloMetricOf,
  type SloPlan,
} from "./slo-metrics";

const plan = (scenario: SloPlan["scenario"], protocol: SloPlan["target"]["protocol"] = "websocket"): SloPlan => ({
  scenario,
  target: { protocol },
});

describe("the SLO metric registry", () => {
  it("is the schema's list, in its order", () => {
    expect(BUILTIN_SLO_METRICS).toEqual([
      "rtt-p50-ms",
      "rtt-p99-ms",
      "rtt-corrected-p99-ms",
      "broadcast-p99-ms",
      "connect-p99-ms",
      "login-p99-ms",
      "error-rate",
      "loss-rate",
    ]);
    for (const metric of BUILTIN_SLO_METRICS) expect(Slo.safeParse({ metric, below: 1 }).success).toBe(true);
    expect(Slo.safeParse({ metric: "rtt-p90-ms", below: 1 }).error?.issues[0]?.message).toBe(
      `must be one of ${BUILTIN_SLO_METRICS.join(", ")}, or "script:NAME-p50", "script:NAME-p99", "script:NAME-count"`,
    );
  });

  it("gives each metric, built-in or a script's, its words, unit and chart", () => {
    const described = ["rtt-p99-ms", "error-rate", "script:join-ms-p99", "script:replies-count"].map((metric) => {
      const spec = sloMetricSpec(metric)!;
      return [spec.words, spec.unit, spec.chart];
    });
    expect(described).toEqual([
      ["Round trip p99", "ms", "rtt"],
      ["Error rate", "ratio", "rates"],
      ["join-ms p99 (script)", "ms", "script-latency"],
      ["replies count (script)", "count", null],
    ]);
    expect(sloMetricSpec("script:Bad-p99")).toBeUndefined();
    expect([inChartUnit("loss-rate", 0.05), inChartUnit("rtt-p99-ms", 50)]).toEqual([5, 50]);
  });

  it("says which metrics each plan measures", () => {
    expect(measuredSloMetrics(plan({ kind: "ping-pong" }, "udp"))).toEqual([
      "rtt-p50-ms",
      "rtt-p99-ms",
      "rtt-corrected-p99-ms",
      "connect-p99-ms",
      "error-rate",
      "loss-rate",
    ]);
    expect(measuredSloMetrics(plan({ kind: "echo-flood" }))).toEqual([
      "rtt-p50-ms",
      "rtt-p99-ms",
      "connect-p99-ms",
      "error-rate",
    ]);
    expect(measuredSloMetrics(plan({ kind: "login-storm", session: [{}] }))).toEqual([
      "connect-p99-ms",
      "login-p99-ms",
      "error-rate",
    ]);
    expect(measuredSloMetrics(plan({ kind: "script", metrics: [{ name: "join-ms", kind: "histogram" }] }))).toEqual([
      "script:join-ms-p50",
      "script:join-ms-p99",
      "broadcast-p99-ms",
      "connect-p99-ms",
      "error-rate",
    ]);
  });

  it("refuses what a plan never measures, except where plans saved before could name it (then it is only not measured)", () => {
    expect(sloMetricProblem("rtt-p99-ms", plan({ kind: "login-storm" }))).toEqual({
      message: "round trips are measured only by ping-pong and echo-flood plans",
      refused: true,
    });
    expect(sloMetricProblem("rtt-p99-ms", plan({ kind: "movement-sync" }))).toEqual({
      message: "round trips are measured only by ping-pong and echo-flood plans",
      refused: false,
    });
    expect(sloMetricProblem("rtt-p99-ms", plan({ kind: "ping-pong" }))).toBeNull();
  });

  it("starts a new SLO on the scenario's own figure", () => {
    expect(firstSloMetric(plan({ kind: "echo-flood" }))).toBe("rtt-p99-ms");
    expect(firstSloMetric(plan({ kind: "login-storm", login: true }))).toBe("login-p99-ms");
    expect(firstSloMetric(plan({ kind: "script", metrics: [{ name: "join-ms", kind: "histogram" }] }))).toBe(
      "script:join-ms-p99",
    );
  });

  it("makes every place keyed by the rates name each of them (checked by tsc)", () => {
    // @ts-expect-error a Record over the ratio metrics that leaves out loss-rate does not compile
    const colours: Record<BuiltinSloMetricOf<"ratio">, string> = { "error-rate": "red" };
    expect(Object.keys(colours)).toEqual(["error-rate"]);
    expect(
      Object.keys(SLO_METRICS).filter((metric) => SLO_METRICS[metric as keyof typeof SLO_METRICS].unit === "ratio"),
    ).toEqual(["error-rate", "loss-rate"]);
  });
});
