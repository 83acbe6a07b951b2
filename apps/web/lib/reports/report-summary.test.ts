import { describe, expect, it } from "vitest";
import type { CapacityEstimate } from "@throng/protocol/report";
import type { RunView } from "@throng/protocol/run";
import { stepUpRunSummary } from "@throng/protocol/run-summary.test-support";
import {
  capacityFacts,
  exportFileName,
  formatSloValue,
  formatUslParameter,
  reportSentence,
  saturatedAgentLines,
  sloRows,
} from "./report-summary";

const run = (over: Partial<RunView>): RunView =>
  ({
    id: "5f0c1c6e-0000-4000-8000-000000000000",
    planId: "p",
    planName: "Lobby soak",
    status: "finished",
    spec: { scenario: { kind: "ping-pong" } } as RunView["spec"],
    error: null,
    createdAt: "2026-01-01T00:00:00Z",
    startedAt: null,
    endedAt: null,
    summary: stepUpRunSummary,
    events: [],
    ...over,
  }) as RunView;
const slo = (over: object) => ({
  metric: "rtt-p99-ms",
  below: 50,
  value: 4.5,
  passed: true,
  breachedSeconds: 0,
  measuredSeconds: 8,
  firstBreachAt: null,
  ...over,
});
/** A run's SLO verdict with no reasons or warnings: passed or not, and the SLOs as judged. */
const judged = (passed: boolean, slos: ReturnType<typeof slo>[]) => ({ passed, reasons: [], warnings: [], slos });

const capacity: CapacityEstimate = {
  clients: 15,
  valid: false,
  problems: ["agent saturated"],
  breakingStep: 3,
  breakingSlos: ["rtt-p99-ms"],
  kneeClients: 15,
  usl: {
    lambda: 10,
    sigma: 0.05,
    kappa: 0.001,
    rSquared: 0.97,
    peakClients: 30,
    peakThroughputPerSec: 150,
    trustedUpToClients: 30,
  },
  steps: [
    { step: 0, clients: 5, seconds: 2, throughputPerSec: 50, rttP99Ms: 2, slos: [], held: true, saturatedAgents: [] },
    {
      step: 3,
      clients: 20,
      seconds: 2,
      throughputPerSec: 120,
      rttP99Ms: 80,
      slos: [],
      held: false,
      saturatedAgents: [{ agentId: "abcdef12-3456", reason: "CPU 98 %" }],
    },
  ],
  sentence: "Holds 15 clients while meeting rtt-p99-ms < 50; broke at 20 clients on rtt-p99-ms.",
};

describe("reportSentence", () => {
  it("uses the capacity search's own sentence for a step-up run, its metrics in words", () => {
    expect(reportSentence(run({ capacity }))).toBe(
      "Holds 15 clients while meeting Round trip p99 below 50 ms; broke at 20 clients on Round trip p99.",
    );
  });
  it("says which SLOs failed and at what load", () => {
    const verdict = judged(false, [slo({}), slo({ metric: "error-rate", below: 0.01, value: 0.2, passed: false })]);
    expect(reportSentence(run({ verdict }))).toBe(
      "Failed Error rate at 20 clients, 100 messages/s, round trip p99 4.5 ms.",
    );
  });
  it("says a run passed every SLO, and that a run without SLOs was not judged", () => {
    expect(reportSentence(run({ verdict: judged(true, [slo({})]) }))).toMatch(/^Passed all 1 SLO at 20 clients/);
    expect(reportSentence(run({ verdict: null }))).toMatch(/sets no SLOs/);
  });
  it("never reads as a pass when the verdict is incomplete or aborted, and says why", () => {
    const reasons = [
      "the load fell short of its schedule: 1600 of 2400 scheduled messages sent, 4 of 12 seconds more than 10% short",
    ];
    const incomplete = { passed: false, outcome: "incomplete" as const, reasons, warnings: [], slos: [slo({})] };
    expect(reportSentence(run({ verdict: incomplete }))).toBe(
      `Not passed at 20 clients, 100 messages/s, round trip p99 4.5 ms: ${reasons[0]}.`,
    );
    const aborted = {
      passed: false,
      outcome: "aborted" as const,
      reasons: ["aborted by ann"],
      warnings: [],
      slos: [slo({})],
    };
    expect(reportSentence(run({ status: "aborted", verdict: aborted }))).toMatch(
      /^Aborted at 20 clients.*does not pass/,
    );
  });
  it("names a movement-sync run's broadcast p99 and reach, not an unmeasured round trip", () => {
    const moved = {
      ...stepUpRunSummary,
      rttP99Ms: null,
      latency: { broadcast: { count: 10, p50Ms: 1, p90Ms: 9, p99Ms: 12.5, maxMs: 13 } },
      broadcastReach: 0.987,
    };
    const sentence = reportSentence(
      run({ spec: { scenario: { kind: "movement-sync" } } as RunView["spec"], summary: moved, verdict: null }),
    );
    expect(sentence).toBe(
      "Ran 20 clients, 100 messages/s, broadcast p99 12.5 ms, broadcast reach 98.7 %; the plan sets no SLOs to judge it by.",
    );
  });
  it("gives the failure of a failed run", () => {
    expect(reportSentence(run({ status: "failed", error: "no agent answered", summary: null }))).toBe(
      "The run failed: no agent answered",
    );
  });
});

describe("sloRows", () => {
  it("formats latencies in ms and rates in percent, with the breached seconds", () => {
    const rows = sloRows(
      judged(false, [
        slo({}),
        slo({
          metric: "loss-rate",
          below: 0.01,
          value: 0.05,
          passed: false,
          breachedSeconds: 3,
          firstBreachAt: 1_700_000_000,
        }),
      ]),
    );
    expect(rows[0]).toMatchObject({
      name: "Round trip p99",
      threshold: "below 50 ms",
      measured: "4.5 ms",
      seconds: "held all 8 s measured",
    });
    expect(rows[1]).toMatchObject({ name: "Loss rate", threshold: "below 1 %", measured: "5 %", passed: false });
    expect(rows[1]!.seconds).toMatch(/^broke in 3 of 8 s, first at /);
    expect(formatSloValue("rtt-p99-ms", null)).toBe("not measured");
    expect(formatSloValue("script:desyncs-count", 1200)).toBe("1,200");
  });

  it("names the network cohort an SLO is scoped to", () => {
    const rows = sloRows(judged(false, [slo({}), slo({ cohort: "mobile", below: 300, value: 400, passed: false })]));
    expect(rows.map((row) => row.name)).toEqual(["Round trip p99", "Round trip p99, cohort mobile"]);
  });

  it("names a script's metric by its own name", () => {
    const rows = sloRows(
      judged(true, [
        slo({ metric: "script:join-ms-p99", below: 200, value: 12 }),
        slo({ metric: "script:desyncs-count", below: 1, value: 0 }),
      ]),
    );
    expect(rows[0]).toMatchObject({ name: "join-ms p99 (script)", threshold: "below 200 ms", measured: "12 ms" });
    expect(rows[1]).toMatchObject({ name: "desyncs count (script)", threshold: "below 1", measured: "0" });
  });
});

describe("capacity evidence", () => {
  it("does not claim a level the server did not recover at, and says what is known instead", () => {
    const contradicted = {
      ...capacity,
      clients: null,
      valid: false,
      lastHeldClients: 15,
      recovered: false,
      range: { from: 10, to: 15 },
    };
    const holds = capacityFacts(contradicted).find((f) => f.label === "Holds")!;
    expect(holds.value).toBe("not claimed");
    expect(holds.hint).toBe(
      "15 clients held before the break, but the server did not recover; capacity is between 10 and 15 clients",
    );
  });

  it("lists the estimate, the breaking step, the knee and the USL parameters", () => {
    const facts = Object.fromEntries(capacityFacts(capacity).map((f) => [f.label, f.value]));
    expect(facts.Holds).toBe("15 clients");
    expect(facts["Broke at"]).toBe("20 clients");
    expect(facts.Knee).toBe("15 clients");
    expect(facts["R² (goodness of fit)"]).toBe("0.970");
    expect(facts["Trust the fit up to"]).toBe("30 clients");
  });
  it("says a dropped, negligible κ leaves no retrograde region and no finite peak", () => {
    const usl = { ...capacity.usl!, kappa: 0, peakClients: null, peakThroughputPerSec: null, droppedKappa: 5e-16 };
    const peak = capacityFacts({ ...capacity, usl }).find((f) => f.label === "Predicted peak")!;
    expect(peak.value).toBe("none");
    expect(peak.hint).toBe(
      "the fitted κ (5e-16) changed the prediction at the largest step by under 1%, so it is taken as 0: the data show no retrograde region",
    );
  });
  it("names the saturated agent and why", () => {
    expect(saturatedAgentLines(capacity, () => "load-1")).toEqual([
      "Agent load-1 was saturated at 20 clients: CPU 98 %",
    ]);
  });
});

it("names export files after the plan and run", () => {
  expect(exportFileName(run({}), "csv")).toBe("lobby-soak-5f0c1c6e.csv");
});

it("writes fitted parameters short, a tiny κ in exponent notation (it overflowed the report at 1024 px)", () => {
  expect(formatUslParameter(5.123456e-16)).toBe("5.123e-16");
  expect(formatUslParameter(0.000201)).toBe("2.01e-4");
  expect(formatUslParameter(9.99812)).toBe("9.998");
  expect(formatUslParameter(0)).toBe("0");
});
