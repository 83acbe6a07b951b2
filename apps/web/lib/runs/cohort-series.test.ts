import { describe, expect, it } from "vitest";
import type { CohortPoint, SeriesPoint } from "@throng/protocol/snapshot";
import { cohortLatencyLines, cohortLatencyRead, cohortNames, cohortThresholds, liveCohortRows } from "./cohort-series";

const figures = {
  agents: 1,
  clients: 10,
  connections: 10,
  messagesSentPerSec: 100,
  messagesReceivedPerSec: 100,
  bytesSentPerSec: 1,
  bytesReceivedPerSec: 1,
  errors: 0,
  rttP50Ms: 2,
  rttP99Ms: 5,
  rttMaxMs: 9,
};
const cohort = (over: Partial<CohortPoint>): CohortPoint => ({ ...figures, t: 0, applied: "datagram", ...over });
const point = (t: number, cohorts?: SeriesPoint["cohorts"]): SeriesPoint => ({
  ...figures,
  t,
  ...(cohorts ? { cohorts } : {}),
});

describe("network cohorts second by second", () => {
  it("shows each cohort's newest second live: clients, p50 and p99, errors; dashes for a cohort that second lacks", () => {
    const points = [
      point(1, { mobile: cohort({ clients: 3, rttP50Ms: 40, rttP99Ms: 80, errors: 1 }) }),
      point(2, { mobile: cohort({ clients: 4, rttP50Ms: 41.5, rttP99Ms: 120, errors: 2 }) }),
      // The newest second has not reached any cohort's figures yet: the one before is still the latest.
      point(3),
    ];
    const { t, rows } = liveCohortRows(["mobile", "wifi"], points, "ping-pong");
    expect(t).toBe(2);
    expect(rows).toEqual([
      { name: "mobile", clients: "4", p50: "41.5 ms", p99: "120 ms", errors: "2", reach: "—" },
      { name: "wifi", clients: "—", p50: "—", p99: "—", errors: "—", reach: "—" },
    ]);
  });

  it("reads a movement-sync cohort's broadcasts and reach, not round trips", () => {
    const broadcast = { count: 9, p50Ms: 30, p90Ms: 50, p99Ms: 70, maxMs: 90 };
    const { rows } = liveCohortRows(
      ["mobile"],
      [point(1, { mobile: cohort({ latency: { broadcast }, broadcastReach: 0.95 }) })],
      "movement-sync",
    );
    expect(rows[0]).toMatchObject({ p50: "30 ms", p99: "70 ms", reach: "95 %" });
  });

  it("charts a p99 line per cohort, in the plan's order, beside all the run's clients, with the SLOs naming a cohort", () => {
    const points = [point(1, { mobile: cohort({ rttP99Ms: 80 }), extra: cohort({ rttP99Ms: 7 }) })];
    const names = cohortNames(["wifi", "mobile"], points);
    expect(names).toEqual(["wifi", "mobile", "extra"]);
    const lines = cohortLatencyLines(names, cohortLatencyRead("ping-pong")!);
    expect(lines.map((line) => [line.label, line.value(points[0]!)])).toEqual([
      ["wifi p99", null],
      ["mobile p99", 80],
      ["extra p99", 7],
      ["all clients p99", 5],
    ]);
    const slos = [
      { metric: "rtt-p99-ms" as const, below: 100, cohort: "mobile" },
      { metric: "rtt-p99-ms" as const, below: 10 },
      { metric: "error-rate" as const, below: 0.01, cohort: "mobile" },
    ];
    expect(cohortThresholds(slos, cohortLatencyRead("ping-pong")!)).toEqual([
      { value: 100, label: "SLO mobile: Round trip p99 < 100 ms" },
    ]);
  });
});
