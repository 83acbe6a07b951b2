import { describe, expect, it } from "vitest";
import type { StoredSnapshot } from "@throng/protocol/snapshot";
import { encodeValues } from "@throng/wire/snapshot-histogram";
import { summariseRun } from "@throng/wire/run-summary";
import { summariseRange, startSecond } from "./range-summary";

const START = 1_790_000_000;

function snapshot(agentId: string, offset: number, valuesUs: number[]): StoredSnapshot {
  return {
    agentId,
    seq: offset,
    second: START + offset,
    intervalMs: 1000,
    clients: 10,
    counters: {
      connectionsOpen: 10,
      connectionsOpened: offset === 0 ? 10 : 0,
      connectionsFailed: 0,
      connectionsClosed: 0,
      messagesSent: valuesUs.length,
      messagesReceived: valuesUs.length,
      bytesSent: valuesUs.length * 64,
      bytesReceived: valuesUs.length * 64,
      errors: 0,
    },
    rttHist: encodeValues(valuesUs),
    histograms: {},
    step: null,
    health: { cpuPercent: 5, eventLoopP99Ms: 1, rssBytes: 1 },
  };
}

/** 30 seconds from two agents, 500 round trips of 1 ms each a second; at second 12 agent b's 100 take 200 ms. */
function runWithSpike(): StoredSnapshot[] {
  const rows: StoredSnapshot[] = [];
  for (let offset = 0; offset < 30; offset += 1) {
    rows.push(snapshot("a", offset, Array(500).fill(1_000)));
    rows.push(snapshot("b", offset, offset === 12 ? Array(100).fill(200_000) : Array(500).fill(1_000)));
  }
  return rows;
}

describe("a run's summary over a range of its seconds", () => {
  it("is the whole run's summary when the range is the whole run", () => {
    const rows = runWithSpike();
    expect(summariseRange(rows, START, { from: 0, to: 30 })).toEqual({ seconds: 30, summary: summariseRun(rows) });
  });

  it("shows a spike's p99 in a range around it that the whole run's p99 hides, from merged histograms", () => {
    const rows = runWithSpike();
    // 100 slow of 29,600: under 1 % of the run, so its p99 stays at 1 ms.
    expect(summariseRun(rows).rttP99Ms).toBeLessThan(2);
    const { seconds, summary } = summariseRange(rows, START, { from: 10, to: 15 });
    expect(seconds).toBe(5);
    // 100 slow of 4,600 round trips: merged, p99 is the spike's 200 ms (averaging the seconds' p99s would read ~41 ms).
    expect(summary!.rttP99Ms).toBeGreaterThan(195);
    expect(summary!.rttP50Ms).toBeLessThan(2);
    expect(summary!.roundTrips).toBe(4_600);
    expect(summary!.durationSec).toBe(5);
  });

  it("holds the seconds from `from` up to, not including, `to`, counted from the run's start", () => {
    const rows = runWithSpike();
    expect(summariseRange(rows, START, { from: 13, to: 20 }).summary!.rttMaxMs).toBeLessThan(2);
    expect(summariseRange(rows, START, { from: 12, to: 13 }).summary!.rttMaxMs).toBeGreaterThan(195);
    expect(summariseRange(rows, START, { from: 0, to: 12 }).summary!.rttMaxMs).toBeLessThan(2);
  });

  it("times a session's steps over the range only: a step's slow replies and failures outside it are left out", () => {
    const rows = runWithSpike().map((row) => {
      const offset = row.second - START;
      // Step 1's reply takes 2 ms, but 300 ms with a timeout at second 12 on agent b.
      const slow = offset === 12 && row.agentId === "b";
      return {
        ...row,
        counters: {
          ...(row.counters as object),
          ...(slow ? { sessionStepFailures: { "1": { "session-timeout": 1 } } } : {}),
        },
        histograms: { sessionSteps: { "1": encodeValues([slow ? 300_000 : 2_000]) } } as unknown as Record<
          string,
          string
        >,
      };
    });
    const around = summariseRange(rows, START, { from: 10, to: 15 }).summary!.sessionSteps?.["1"];
    expect(around).toMatchObject({ count: 10, failures: { "session-timeout": 1 } });
    expect(around!.maxMs).toBeGreaterThan(295);
    const after = summariseRange(rows, START, { from: 13, to: 20 }).summary!.sessionSteps?.["1"];
    expect(after).toMatchObject({ count: 14, failures: {} });
    expect(after!.maxMs).toBeLessThan(3);
  });

  it("is empty for a range past the measured seconds", () => {
    expect(summariseRange(runWithSpike(), START, { from: 40, to: 50 })).toEqual({ seconds: 0, summary: null });
  });

  it("counts seconds from the second the run's start falls in", () => {
    expect(startSecond(new Date((START + 0.75) * 1000))).toBe(START);
  });
});
