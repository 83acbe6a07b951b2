import { describe, expect, it } from "vitest";
import type { StoredSnapshot } from "@throng/protocol/snapshot";
import { encodeValues } from "./snapshot-histogram";
import { mergeRows } from "./snapshot-merge";
import { buildSeries, mergeSecond, summariseRun } from "./run-summary";
import { secondCounters, storedSecond } from "./stored-second.test-support";

function row(agentId: string, second: number, valuesUs: number[], messages: number, open = 10): StoredSnapshot {
  return storedSecond(agentId, second, {
    clients: open,
    counters: secondCounters(open, messages),
    rttHist: encodeValues(valuesUs),
  });
}

describe("merging snapshots per second", () => {
  it("merges histograms across agents instead of averaging their percentiles", () => {
    // Agent a: 99 fast replies; agent b: 1 slow one. Averaging p99s would give ~ (1+50)/2 ms.
    const a = row("a", 100, Array(99).fill(1_000), 99);
    const b = row("b", 100, [50_000], 1);
    const point = mergeSecond(100, [a, b]);
    expect(point.rttP50Ms).toBeCloseTo(1, 1);
    expect(point.rttP99Ms).toBeCloseTo(1, 1);
    expect(point.rttMaxMs).toBeCloseTo(50, 0);
    expect(point.connections).toBe(20);
    expect(point.agents).toBe(2);
    expect(point.messagesReceivedPerSec).toBe(100);
  });

  it("orders seconds and sums a run into a summary", () => {
    const rows = [row("a", 2, [2_000], 5), row("a", 1, [1_000], 5), row("b", 1, [3_000], 5, 4)];
    const series = buildSeries(rows);
    expect(series.map((p) => p.t)).toEqual([1, 2]);
    const summary = summariseRun(rows);
    expect(summary.peakConnections).toBe(14);
    expect(summary.messagesReceived).toBe(15);
    expect(summary.messagesPerSec).toBe(7.5);
    expect(summary.rttMaxMs).toBeCloseTo(3, 1);
    expect(summary.agents).toBe(2);
  });

  it("sums a KCP target's counters per second and over the run; other runs carry none", () => {
    const kcp = (agent: string, second: number, retransmits: number) => {
      const r = row(agent, second, [1_000], 10);
      r.counters = {
        ...(r.counters as object),
        kcpRetransmits: retransmits,
        kcpFastRetransmits: retransmits,
        kcpRtoExpiries: 0,
        kcpWireBytesSent: 1_200,
        kcpPayloadBytesSent: 1_000,
      };
      return r;
    };
    const rows = [kcp("a", 1, 2), kcp("b", 1, 3), kcp("a", 2, 4)];
    expect(mergeSecond(1, rows.slice(0, 2))).toMatchObject({
      kcpRetransmits: 5,
      kcpWireBytesSent: 2_400,
      kcpPayloadBytesSent: 2_000,
    });
    expect(summariseRun(rows)).toMatchObject({
      kcpRetransmits: 9,
      kcpFastRetransmits: 9,
      kcpRtoExpiries: 0,
      kcpWireBytesSent: 3_600,
    });
    expect(mergeSecond(1, [row("a", 1, [1_000], 10)])).not.toHaveProperty("kcpRetransmits");
  });

  it("merges the other latencies, scenario counters and agent health, and names saturated agents", () => {
    const a = {
      ...row("a", 7, [1_000], 10),
      histograms: { rttCorrectedUs: encodeValues([1_000, 90_000]), broadcastUs: encodeValues([3_000]) },
    };
    a.counters = { ...(a.counters as object), broadcastsExpected: 10, broadcastsReceived: 9, lost: 1 };
    const b = {
      ...row("b", 7, [1_000], 10),
      step: 2,
      health: { cpuPercent: 99, eventLoopP99Ms: 80, rssBytes: 1, saturated: true, saturatedReason: "cpu 99%" },
    };
    b.counters = { ...(b.counters as object), broadcastsExpected: 10, broadcastsReceived: 10 };
    const point = mergeSecond(7, [a, b]);
    expect(point.agentHealth).toBeUndefined(); // joined from the snapshots when the series is read
    expect(
      mergeRows([a, b])
        .health()
        .map((h) => h.saturated ?? false),
    ).toEqual([false, true]);
    expect(point.latency?.rttCorrected?.maxMs).toBeCloseTo(90, 0);
    expect(point.rttMaxMs).toBeCloseTo(1, 1); // the stall shows only in the corrected histogram
    expect(point.latency?.broadcast?.p50Ms).toBeCloseTo(3, 1);
    expect(point.broadcastReach).toBe(0.95);
    expect(point.lost).toBe(1);
    expect(point.step).toBe(2);
    expect(summariseRun([a, b]).saturatedAgents).toEqual([{ agentId: "b", seconds: 1, reason: "cpu 99%" }]);
    expect(mergeSecond(1, [row("a", 1, [1], 1)]).broadcastReach).toBeUndefined();
  });

  it("reports null latencies when nothing was measured", () => {
    expect(summariseRun([]).rttP99Ms).toBeNull();
    expect(mergeSecond(1, [row("a", 1, [], 0)]).rttP50Ms).toBeNull();
  });

  it("carries the scheduled sends and the messages in flight at the end into each second and the summary", () => {
    const a = row("a", 1, [1_000], 95);
    a.counters = { ...(a.counters as object), skippedSends: 2, scheduledSends: 100 };
    const b = row("b", 1, [1_000], 50);
    b.counters = { ...(b.counters as object), scheduledSends: 100 };
    const last = row("a", 2, [1_000], 10);
    last.counters = { ...(last.counters as object), scheduledSends: 10, inFlightAtEnd: 3 };
    expect(mergeSecond(1, [a, b])).toMatchObject({ scheduledSends: 200, skippedSends: 2 });
    expect(mergeSecond(1, [a, b]).inFlightAtEnd).toBeUndefined();
    expect(summariseRun([a, b, last])).toMatchObject({ scheduledSends: 210, skippedSends: 2, inFlightAtEnd: 3 });
    expect(mergeSecond(1, [row("a", 1, [1], 1)]).scheduledSends).toBeUndefined();
  });
});

describe("the connections a run lost", () => {
  it("counts the connections the server closed or reset as dropped, apart from the agent's own closes and the connects that failed (issue 27 §2)", () => {
    const healthy = row("a", 100, [1_000], 10, 4);
    const closed = (second: number, closesByCause: Record<string, number>): StoredSnapshot => ({
      ...row("a", second, [], 0, 0),
      counters: secondCounters(0, 0, {
        connectionsClosed: Object.values(closesByCause).reduce((a, b) => a + b, 0),
        closesByCause,
      }),
    });
    const died = closed(101, { server: 1, reset: 3 });
    const ended = closed(102, { agent: 2 });
    const summary = summariseRun([healthy, died, ended]);
    expect(summary.connectionsFailed).toBe(0);
    expect(summary.connectionsDropped).toBe(4);
  });
});
