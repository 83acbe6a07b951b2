import { describe, expect, it } from "vitest";
import type { CohortSummary, RunSummary } from "@throng/protocol/run";
import { runSummary } from "@throng/protocol/run-summary.test-support";
import { cohortRows } from "./cohort-table";

const totals = runSummary({ messagesReceived: 95, messagesPerSec: 9.5, rttP50Ms: 1, rttP99Ms: 2, rttMaxMs: 3 });
const cohort = (over: Partial<CohortSummary>): CohortSummary => ({ ...totals, applied: "datagram", ...over });

describe("the run page's network cohorts table", () => {
  it("gives each cohort's clients, round trips, loss, what its network dropped and its retransmissions, in the plan's order", () => {
    const summary: RunSummary = {
      ...totals,
      cohorts: {
        wifi: cohort({ peakClients: 7, rttP50Ms: 41.5, rttP99Ms: 156, tcpRetransmits: 6, applied: "above-stream" }),
        mobile: cohort({
          peakClients: 3,
          rttP50Ms: 120,
          rttP99Ms: 480,
          lost: 5,
          kcpRetransmits: 45,
          networkPackets: 200,
          networkDropped: 10,
        }),
      },
    };
    const rows = cohortRows(summary, ["mobile", "wifi"]);
    expect(rows.map((row) => row.name)).toEqual(["mobile", "wifi"]);
    expect(rows[0]).toEqual({
      name: "mobile",
      clients: "3",
      rttP50: "120 ms",
      rttP99: "480 ms",
      loss: "5 %",
      dropped: "5 % of 200",
      retransmits: "45 (KCP)",
      applied: "per datagram",
      appliedAboveStream: false,
    });
    expect(rows[1]).toMatchObject({
      clients: "7",
      rttP50: "41.5 ms",
      dropped: "—",
      retransmits: "6 (TCP)",
      applied: "above TCP",
      appliedAboveStream: true,
    });
  });

  it("has no rows for a run without cohorts or without a summary yet", () => {
    expect(cohortRows({ ...totals }, [])).toEqual([]);
    expect(cohortRows(null, ["mobile"])).toEqual([]);
  });
});
