import { describe, expect, it } from "vitest";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import {
  addAgentHealth,
  extendColumns,
  agentCpuLines,
  healthAgentIds,
  latencyLines,
  latencyNames,
  stepMarkers,
  eventMarkers,
  formatAxisBytes,
  formatAxisCount,
  mergePoints,
  percentileKeys,
  toColumns,
  xRange,
  RTT_LINES,
} from "./series";

const point = (t: number, connections = 1, rttP99Ms: number | null = 2): SeriesPoint => ({
  t,
  agents: 1,
  clients: 10,
  connections,
  messagesSentPerSec: 5,
  messagesReceivedPerSec: 5,
  bytesSentPerSec: 320,
  bytesReceivedPerSec: 320,
  errors: 0,
  rttP50Ms: 1,
  rttP99Ms,
  rttMaxMs: 3,
});

describe("mergePoints", () => {
  it("replaces a second already present: the API re-merges a second when a late agent reports", () => {
    const merged = mergePoints([point(1, 5), point(2, 5)], [point(2, 10)]);
    expect(merged.map((p) => [p.t, p.connections])).toEqual([
      [1, 5],
      [2, 10],
    ]);
  });

  it("keeps seconds in time order whatever order they arrive in", () => {
    expect(mergePoints([point(3)], [point(1), point(2)]).map((p) => p.t)).toEqual([1, 2, 3]);
  });
});

describe("agent health apart from the points", () => {
  const health = (agentId: string, cpuPercent: number) => ({ agentId, cpuPercent, eventLoopP99Ms: 1, rssBytes: 1 });
  const agents = (p: SeriesPoint | undefined) => p?.agentHealth?.map((h) => `${h.agentId}:${h.cpuPercent}`);

  it("adds an agent-health message's agents to its second, and leaves a second not held alone", () => {
    const current = [point(1), point(2)];
    const added = addAgentHealth(addAgentHealth(current, 2, [health("a", 10)]), 2, [health("b", 20)]);
    expect(agents(added[1])).toEqual(["a:10", "b:20"]);
    expect(added[0]).toBe(current[0]);
    expect(addAgentHealth(current, 5, [health("a", 10)])).toBe(current);
  });

  it("keeps a second's health when a live point without it replaces the point, and joins a fetched point's", () => {
    const held = addAgentHealth([point(1), point(2)], 2, [health("a", 10)]);
    expect(agents(mergePoints(held, [point(2, 9)])[1])).toEqual(["a:10"]); // the newest second, replaced live
    expect(agents(mergePoints(held, [point(1, 9), point(2, 9)])[1])).toEqual(["a:10"]);
    const fetched = { ...point(2, 9), agentHealth: [health("b", 20)] };
    expect(agents(mergePoints(held, [fetched])[1])).toEqual(["a:10", "b:20"]);
  });
});

describe("toColumns", () => {
  it("turns points into uPlot columns, keeping missing percentiles as gaps", () => {
    const p50AndP99 = RTT_LINES.filter((line) => line.label === "p50" || line.label === "p99");
    expect(toColumns([point(1, 1, null), point(2, 1, 4)], p50AndP99)).toEqual([
      [1, 2],
      [1, 1],
      [null, 4],
    ]);
  });
});

describe("xRange", () => {
  it("widens the axis to the planned window so a live run grows from the left", () => {
    expect(xRange([100, 101], [100, 129])).toEqual([100, 129]);
  });

  it("gives a lone point an axis around it and nothing without points", () => {
    expect(xRange([100])).toEqual([99, 101]);
    expect(xRange([])).toBeNull();
  });
});

describe("mergePoints, live", () => {
  it("appends the newest second without re-sorting, and still replaces a re-merged one", () => {
    const current = [point(1), point(2)];
    expect(mergePoints(current, [point(3)]).map((p) => p.t)).toEqual([1, 2, 3]);
    expect(mergePoints(current, [point(2, 9)]).map((p) => p.connections)).toEqual([1, 9]);
  });
});

describe("percentileKeys", () => {
  it("orders round-trip percentiles by rank, max last, whatever the schema's order", () => {
    const shape = { rttMaxMs: 1, rttP99Ms: 1, clients: 1, rttP50Ms: 1, rttP90Ms: 1, rttP99_9Ms: 1 };
    expect(percentileKeys(shape).map((entry) => entry.label)).toEqual(["p50", "p90", "p99", "p99.9", "max"]);
  });

  it("gives the RTT chart every percentile the series schema has", () => {
    expect(RTT_LINES.map((line) => line.label)).toEqual(expect.arrayContaining(["p50", "p99", "max"]));
  });
});

describe("eventMarkers", () => {
  it("puts run events on the time axis in order", () => {
    const markers = eventMarkers([
      { at: "2026-01-01T00:00:10.000Z", kind: "aborted", agentId: null, message: "x" },
      { at: "2026-01-01T00:00:05.000Z", kind: "agent-lost", agentId: null, message: "y" },
      { at: "not a date", kind: "stage", agentId: null, message: "z" },
    ]);
    expect(markers.map((marker) => [marker.t % 60, marker.label])).toEqual([
      [5, "agent lost"],
      [10, "aborted"],
    ]);
  });

  it.each([
    [
      "seconds-lost",
      "it is recorded when the run closes, not when the seconds went missing",
      "2026-01-01T00:00:30.000Z",
      "agent a lost seconds 3–5 (3 s)",
    ],
    [
      "queued",
      "a run waits for its agents before its time axis begins",
      "2026-01-01T00:00:01.000Z",
      "The one agent that matches is busy with run r",
    ],
  ] as const)("leaves %s out: %s", (kind, _why, at, message) => {
    expect(eventMarkers([{ at, kind, agentId: null, message }])).toEqual([]);
  });
});

describe("axis formats", () => {
  it("shortens counts and bytes", () => {
    expect([formatAxisCount(950), formatAxisCount(12_500), formatAxisCount(3_400_000)]).toEqual([
      "950",
      "12.5k",
      "3.4M",
    ]);
    expect([formatAxisBytes(512), formatAxisBytes(2_048_000)]).toEqual(["512 B", "2.05 MB"]);
  });
});

describe("optional series", () => {
  const base = point(1);
  const withExtras = (t: number, step: number, cpu: number): SeriesPoint => ({
    ...base,
    t,
    step,
    latency: { rttCorrected: { count: 1, p50Ms: 1, p90Ms: 2, p99Ms: 3, maxMs: 4 } },
    agentHealth: [{ agentId: "00000000-0000-4000-8000-0000000000a1", cpuPercent: cpu, eventLoopP99Ms: 1, rssBytes: 1 }],
  });

  it("draws only the latencies and agents the seconds carry", () => {
    const points = [point(0), withExtras(1, 0, 50), withExtras(2, 1, 70)];
    expect(latencyNames(points)).toEqual(["rttCorrected"]);
    expect(latencyLines(["rttCorrected"])[0]!.value(points[1]!)).toBe(3);
    const ids = healthAgentIds(points);
    const cpu = agentCpuLines(ids, () => "rig-1");
    expect(cpu.map((line) => line.label)).toEqual(["rig-1 CPU %"]);
    expect(points.map((p) => cpu[0]!.value(p))).toEqual([null, 50, 70]);
  });

  it("marks where each new load step starts", () => {
    expect(
      stepMarkers([withExtras(1, 0, 1), withExtras(2, 0, 1), withExtras(3, 1, 1)]).map((m) => [m.t, m.label]),
    ).toEqual([[3, "step 2"]]);
  });
});

describe("extendColumns", () => {
  const lines = RTT_LINES.filter((line) => line.label === "p99");
  it("extends the previous columns by the one new second, leaving them untouched", () => {
    const held = [point(1, 1, 5), point(2, 1, 6)];
    const columns = toColumns(held, lines);
    const next = extendColumns({ points: held, lines, columns }, [...held, point(3, 1, 7)], lines);
    expect(next).toEqual([
      [1, 2, 3],
      [5, 6, 7],
    ]);
    expect(columns).toEqual([
      [1, 2],
      [5, 6],
    ]);
  });

  it("builds afresh when the points are not the previous ones plus one", () => {
    const held = [point(1, 1, 5), point(2, 1, 6)];
    const columns = toColumns(held, lines);
    expect(
      extendColumns({ points: held, lines, columns }, [point(1, 1, 9), point(2, 1, 6), point(3, 1, 7)], lines),
    ).toEqual([
      [1, 2, 3],
      [9, 6, 7],
    ]);
    expect(extendColumns(null, held, lines)).toEqual(columns);
  });

  it("builds afresh when an older second was replaced in the same update as a new second arrived", () => {
    const held = [point(1, 1, 5), point(2, 1, 6), point(3, 1, 7)];
    const columns = toColumns(held, lines);
    const next = [point(1, 1, 9), held[1]!, held[2]!, point(4, 1, 8)];
    expect(extendColumns({ points: held, lines, columns }, next, lines)).toEqual([
      [1, 2, 3, 4],
      [9, 6, 7, 8],
    ]);
  });
});
