import { describe, expect, it } from "vitest";
import { compareWithBaseline, type ComparedRun } from "@throng/protocol/baseline-compare";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { baselineRows } from "./baseline-table";

const spec = { scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 } } as unknown as ComparedRun["spec"];
const seconds = (p99: number, wobble: number): SeriesPoint[] =>
  Array.from({ length: 6 }, (_, i) => ({
    t: i,
    agents: 1,
    clients: 5,
    connections: 5,
    messagesSentPerSec: 50,
    messagesReceivedPerSec: 50,
    bytesSentPerSec: 0,
    bytesReceivedPerSec: 0,
    errors: 0,
    rttP50Ms: 1,
    rttP99Ms: p99 + (i % 2 ? wobble : -wobble),
    rttMaxMs: p99,
  }));
const run = (id: string, p99: number, wobble: number): ComparedRun => ({
  id,
  spec,
  series: seconds(p99, wobble),
  summary: {
    agents: 1,
    peakClients: 5,
    peakConnections: 5,
    durationSec: 6,
    messagesSent: 300,
    messagesReceived: 300,
    messagesPerSec: 50,
    connectionsFailed: 0,
    errors: 0,
    rttP50Ms: 1,
    rttP99Ms: p99,
    rttMaxMs: p99,
  },
});

describe("the baseline table", () => {
  it("words each metric's two figures, its change and whether it is noise", () => {
    const rows = baselineRows(compareWithBaseline(run("new", 30, 0.5), run("base", 20, 0.5)));
    expect(rows.map((row) => row.label)).toEqual(["Round trip p50", "Round trip p99", "Error rate"]);
    expect(rows[1]).toMatchObject({
      baseline: "20 ms",
      value: "30 ms",
      change: "+50%",
      status: "worse",
      verdict: "worse",
    });
    expect(rows[0]).toMatchObject({ change: "no change", verdict: "within noise" });
    expect(rows[2]).toMatchObject({ baseline: "0 %", value: "0 %", change: "no change" });
  });
});
