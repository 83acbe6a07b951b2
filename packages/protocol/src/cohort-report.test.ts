import { describe, expect, it } from "vitest";
import { cohortConditionsText, cohortSections, type CohortReportFormat } from "./cohort-report";
import type { CohortSummary, RunView } from "./run";
import { runSummary } from "./run-summary.test-support";

const f: CohortReportFormat = {
  integer: (n) => String(Math.round(n)),
  ms: (n) => (n === null ? "not measured" : `${n} ms`),
  percent: (n) => (n === null ? "not measured" : `${Number((n * 100).toFixed(1))} %`),
  decimal: (n, digits) => String(Number(n.toFixed(digits))),
};
const totals = runSummary({
  messagesReceived: 95,
  messagesPerSec: 9.5,
  errors: 2,
  rttP50Ms: 41,
  rttP99Ms: 160,
  rttMaxMs: 300,
});
const cohort = (over: Partial<CohortSummary>): CohortSummary => ({ ...totals, applied: "datagram", ...over });
const verdict = (metric: string, cohortName?: string) => ({
  metric,
  below: 200,
  value: 160,
  passed: true,
  status: "met" as const,
  breachedSeconds: 0,
  measuredSeconds: 9,
  firstBreachAt: null,
  ...(cohortName ? { cohort: cohortName } : {}),
});

function run(kind: "ping-pong" | "movement-sync", cohorts: Record<string, CohortSummary> | undefined): RunView {
  return {
    spec: {
      scenario: { kind },
      load: { clients: 20, durationSec: 10 },
      network: [
        { name: "mobile", share: 0.3, delayMs: 20, jitterMs: 5, lossPercent: 10, direction: "both" },
        { name: "wifi", clients: 4, bandwidthKbps: 512, direction: "down" },
      ],
    },
    summary: { ...totals, cohorts },
    verdict: {
      passed: true,
      reasons: [],
      warnings: [],
      slos: [verdict("rtt-p99-ms"), verdict("rtt-p99-ms", "mobile")],
    },
  } as unknown as RunView;
}

describe("a report's section per network cohort", () => {
  it("says each cohort's network as planned, in the plan's order, and which of the plan's SLOs judged it", () => {
    const sections = cohortSections(
      run("ping-pong", { mobile: cohort({}), wifi: cohort({ applied: "above-stream" }) }),
      f,
    );
    expect(sections.map((s) => [s.name, s.size, s.conditions])).toEqual([
      ["mobile", "30 % of the clients", "delay 20 ms ± 5 ms, loss 10 %, each way"],
      ["wifi", "4 clients", "512 kbit/s per client, server to client only"],
    ]);
    expect(sections[0]!.slos.map((s) => s.cohort)).toEqual(["mobile"]);
    expect(sections[1]!.slos).toEqual([]);
    expect(sections.map((s) => [s.applied, s.aboveStream])).toEqual([
      ["per datagram", false],
      ["above TCP", true],
    ]);
  });

  it("gives a round-trip scenario's cohort its percentiles, errors and loss, read from its own totals", () => {
    const [mobile] = cohortSections(
      run("ping-pong", { mobile: cohort({ lost: 5, networkPackets: 200, networkDropped: 20, kcpRetransmits: 7 }) }),
      f,
    );
    const values = Object.fromEntries(mobile!.figures.map((figure) => [figure.id, figure.value]));
    expect(values).toMatchObject({
      "rtt-p50": "41 ms",
      "rtt-p99": "160 ms",
      "rtt-max": "300 ms",
      errors: "2",
      loss: "5 %",
      dropped: "10 % of 200",
      retransmits: "7",
    });
    expect(values["broadcast-reach"]).toBeUndefined();
  });

  it("gives a movement-sync cohort its broadcast latency and reach instead of round trips", () => {
    const broadcast = { count: 50, p50Ms: 30, p90Ms: 60, p99Ms: 90, maxMs: 120 };
    const [mobile] = cohortSections(
      run("movement-sync", { mobile: cohort({ latency: { broadcast }, broadcastReach: 0.9 }) }),
      f,
    );
    const ids = mobile!.figures.map((figure) => figure.id);
    expect(ids).toContain("broadcast-reach");
    expect(ids).not.toContain("rtt-p99");
    expect(mobile!.figures.find((figure) => figure.id === "broadcast-reach")!.value).toBe("90 %");
    expect(mobile!.figures.find((figure) => figure.id === "broadcast-p99")!.value).toBe("90 ms");
  });

  it("has no figures for a cohort its run measured nothing of, and says a cohort without conditions has the rig's network", () => {
    const sections = cohortSections(run("ping-pong", undefined), f);
    expect(sections.map((s) => s.figures)).toEqual([[], []]);
    expect(sections[0]!.applied).toBeNull();
    expect(cohortConditionsText({ name: "plain", share: 0.5 }, f)).toBe("no conditions set: the rig's own network");
  });
});
