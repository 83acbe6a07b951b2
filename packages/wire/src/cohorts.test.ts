import { describe, expect, it } from "vitest";
import { RunSummary } from "@throng/protocol/run";
import { SeriesPoint, type StoredSnapshot } from "@throng/protocol/snapshot";
import { encodeValues } from "./snapshot-histogram";
import { buildSeries, summariseRun } from "./run-summary";
import { secondCounters, storedSecond } from "./stored-second.test-support";

const counters = (messages: number, extra: Record<string, number> = {}) => secondCounters(2, messages, extra);

/** An agent's second: `rig` round trips of 1 ms from its rig clients, `mobile` of 40 ms (and some lost) from its mobile cohort. */
function row(agentId: string, second: number, mobile: number[], applied = "datagram"): StoredSnapshot {
  return storedSecond(agentId, second, {
    counters: counters(4 + mobile.length, { lost: 1 }),
    rttHist: encodeValues([1_000, 1_000, 1_000, 1_000, ...mobile]),
    cohorts: {
      mobile: {
        clients: 2,
        counters: counters(mobile.length, { lost: 1, networkPackets: 10, networkDropped: 1 }),
        histograms: { rttUs: encodeValues(mobile) },
        applied,
      },
    },
  });
}

describe("network cohorts in the series and the summary", () => {
  it("merges each cohort's second across agents as the run's is, and reads it with the run's own schema", () => {
    const [point] = buildSeries([row("a", 1, [40_000, 40_000]), row("b", 1, [40_000, 80_000], "kernel")]);
    const mobile = point!.cohorts!.mobile!;
    expect(SeriesPoint.parse(point)).toEqual(point);
    expect(point!.rttP50Ms).toBeCloseTo(1, 1);
    expect(mobile.rttP50Ms).toBeCloseTo(40, 0);
    expect(mobile.rttMaxMs).toBeCloseTo(80, 0);
    expect(mobile.clients).toBe(4);
    expect(mobile.agents).toBe(2);
    expect(mobile.lost).toBe(2);
    expect(mobile.networkDropped).toBe(2);
    expect(mobile.networkPackets).toBe(20);
    // Across agents a cohort is as faithful as its least faithful agent.
    expect(mobile.applied).toBe("kernel");
  });

  it("summarises each cohort over its own clients: the run's p99 mixes both, the cohort's is the cohort's", () => {
    const summary = summariseRun([row("a", 1, [40_000, 40_000]), row("a", 2, [40_000, 40_000])]);
    expect(RunSummary.parse(summary)).toEqual(summary);
    expect(summary.cohorts!.mobile!.rttP50Ms).toBeCloseTo(40, 0);
    expect(summary.cohorts!.mobile!.roundTrips).toBe(4);
    expect(summary.cohorts!.mobile!.messagesSent).toBe(4);
    expect(summary.cohorts!.mobile!.applied).toBe("datagram");
    expect(summary.roundTrips).toBe(12);
  });

  it("leaves cohorts out of a run that has none", () => {
    const { cohorts: _, ...plain } = row("a", 1, []);
    expect(summariseRun([plain]).cohorts).toBeUndefined();
    expect(buildSeries([plain])[0]!.cohorts).toBeUndefined();
  });
});
