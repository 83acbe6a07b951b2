import { describe, expect, it } from "vitest";
import type { RunSummary } from "./run";
import { countsMessages, hasRoundTrips, scenarioMetrics, type ScenarioKind } from "./scenario-metrics";
import type { SeriesPoint } from "./snapshot";

const KINDS: readonly ScenarioKind[] = ["ping-pong", "echo-flood", "movement-sync", "login-storm", "script"];
const stats = (p99Ms: number, count = 10) => ({ count, p50Ms: 1, p90Ms: p99Ms, p99Ms, maxMs: p99Ms });
const summary = (extra: Partial<RunSummary>): RunSummary => ({
  agents: 1, peakClients: 10, peakConnections: 10, durationSec: 10, messagesSent: 100, messagesReceived: 100, messagesPerSec: 10,
  connectionsFailed: 0, errors: 0, rttP50Ms: null, rttP99Ms: null, rttMaxMs: null, ...extra,
});

describe("scenario metrics", () => {
  it("says which scenarios time round trips and which have their messages counted", () => {
    expect(KINDS.filter(hasRoundTrips)).toEqual(["ping-pong", "echo-flood"]);
    expect(KINDS.filter((kind) => !countsMessages(kind))).toEqual(["script"]);
  });

  it("leads movement-sync with broadcast p99 and reach, login-storm with connect and login p99, the others with none", () => {
    expect(scenarioMetrics("movement-sync").map((metric) => [metric.id, metric.unit, metric.slo])).toEqual([
      ["broadcast-p99", "ms", "broadcast-p99-ms"], ["broadcast-reach", "ratio", undefined],
    ]);
    expect(scenarioMetrics("login-storm").map((metric) => [metric.label, metric.slo])).toEqual([["Connect p99", "connect-p99-ms"], ["Login p99", "login-p99-ms"]]);
    for (const kind of ["ping-pong", "echo-flood", "script"] as const) expect(scenarioMetrics(kind)).toEqual([]);
  });

  it("reads each figure from a run's summary and from one second alike, null when nothing was measured", () => {
    const [broadcast, reach] = scenarioMetrics("movement-sync");
    const [connect, login] = scenarioMetrics("login-storm");
    const run = summary({ latency: { broadcast: stats(12.5), connect: stats(3), login: stats(40, 0) }, broadcastReach: 0.987 });
    expect([broadcast!.read(run), reach!.read(run), connect!.read(run), login!.read(run)]).toEqual([12.5, 0.987, 3, null]);
    expect([broadcast!.read(summary({})), reach!.read(summary({ broadcastReach: null }))]).toEqual([null, null]);
    const second = { t: 1, latency: { broadcast: stats(7) }, broadcastReach: 0.5 } as Partial<SeriesPoint> as SeriesPoint;
    expect([broadcast!.read(second), reach!.read(second)]).toEqual([7, 0.5]);
  });
});
