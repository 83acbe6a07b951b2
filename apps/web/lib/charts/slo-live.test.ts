import { describe, expect, it } from "vitest";
import type { Slo } from "@throng/protocol/plan";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { sloChart, sloRateLines, sloTally, sloThresholds } from "./slo-live";
import { idleSeriesPoint } from "../shared/series-point.test-support";

const stats = (p99Ms: number) => ({ count: 10, p50Ms: p99Ms / 2, p90Ms: p99Ms, p99Ms, maxMs: p99Ms });
const second = (t: number, extra: Partial<SeriesPoint>): SeriesPoint =>
  idleSeriesPoint({ t, clients: 10, connections: 10, messagesSentPerSec: 100, messagesReceivedPerSec: 100, ...extra });

const slos: Slo[] = [
  { metric: "rtt-p99-ms", below: 50 },
  { metric: "broadcast-p99-ms", below: 20 },
  { metric: "error-rate", below: 0.01 },
  { metric: "script:join-ms-p99", below: 300 },
  { metric: "script:joins-count", below: 1000 },
];

describe("the plan's SLOs on the run's charts", () => {
  it("puts each threshold on the chart of its metric, in that chart's unit, and a script's counter on none", () => {
    expect(slos.map((slo) => sloChart(slo.metric))).toEqual(["rtt", "latency", "rates", "script-latency", null]);
    expect(sloThresholds(slos, "rtt")).toEqual([{ value: 50, label: "SLO: Round trip p99 < 50 ms" }]);
    expect(sloThresholds(slos, "latency")).toEqual([{ value: 20, label: "SLO: Broadcast p99 < 20 ms" }]);
    expect(sloThresholds(slos, "rates")).toEqual([{ value: 1, label: "SLO: Error rate < 1 %" }]);
    expect(sloThresholds(slos, "script-latency").map((threshold) => threshold.value)).toEqual([300]);
  });

  it("charts the rates the SLOs name in percent, as the judge measures them", () => {
    const lines = sloRateLines(slos);
    expect(lines.map((line) => line.label)).toEqual(["Error rate %"]);
    // 2 errors over 100 sends and 10 connections.
    expect(lines[0]!.value(second(1, { errors: 2, messagesSentPerSec: 90 }))).toBeCloseTo(2);
    expect(sloRateLines([{ metric: "rtt-p99-ms", below: 5 }])).toEqual([]);
  });
});

describe("the live SLO tally", () => {
  it("counts the seconds so far that met and that breached each SLO; seconds that measured nothing count as neither", () => {
    const points = [
      second(1, { rttP99Ms: 10, latency: { broadcast: stats(30) } }),
      second(2, { rttP99Ms: 50, latency: { broadcast: stats(5) } }),
      second(3, { rttP99Ms: 70, errors: 5 }),
      second(4, { rttP99Ms: null, clients: 0, connections: 0, messagesSentPerSec: 0 }),
    ];
    const tally = sloTally(slos.slice(0, 3), points);
    expect(tally.map(({ metric, met, breached }) => ({ metric, met, breached }))).toEqual([
      // At the threshold is a breach: the SLO says "below".
      { metric: "rtt-p99-ms", met: 1, breached: 2 },
      { metric: "broadcast-p99-ms", met: 1, breached: 1 },
      { metric: "error-rate", met: 2, breached: 1 },
    ]);
    expect(tally[0]!.label).toBe("Round trip p99 below 50 ms");
  });

  it("counts a script's counter on its running total, as the verdict does", () => {
    const points = [second(1, { scriptCounts: { joins: 600 } }), second(2, { scriptCounts: { joins: 600 } })];
    expect(
      sloTally([{ metric: "script:joins-count", below: 1000 }], points).map(({ met, breached }) => [met, breached]),
    ).toEqual([[1, 1]]);
  });

  it("is empty before the first second", () => {
    expect(sloTally(slos, []).map(({ met, breached }) => met + breached)).toEqual([0, 0, 0, 0, 0]);
  });
});
