import { describe, expect, it } from "vitest";
import type { SearchLevel } from "@throng/protocol/capacity-search";
import { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { createSearchFeed } from "../engine/search-feed";
import { createLatencyHistogram, encodeHistogram, recordMicros } from "../metrics/histogram";
import { createLocalSearch, searchVerdictText } from "./local-search";

const START = 1_000_000;
const plan = PlanSpec.parse({
  name: "search",
  target: { protocol: "websocket", url: "ws://127.0.0.1:1/ws" },
  scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
  load: { clients: 50, durationSec: 120, shape: { kind: "step-up", mode: "auto", startClients: 10, stepDurationSec: 3, coarseSteps: 5, fineSteps: 5 } },
  slos: [{ metric: "rtt-p99-ms", below: 100 }],
});

/** A second of a server that answers in 10 ms up to 32 clients and in 200 ms past that. */
function second(seq: number, clients: number, step: number | undefined): MetricSnapshot {
  const rtt = createLatencyHistogram();
  for (let i = 0; i < 100; i++) recordMicros(rtt, clients <= 32 ? 10_000 : 200_000);
  return {
    runId: "00000000-0000-4000-8000-000000000009", seq, intervalStart: START + seq * 1000, intervalMs: 1000, clients,
    counters: { connectionsOpen: clients, connectionsOpened: 0, connectionsFailed: 0, connectionsClosed: 0, messagesSent: 100, messagesReceived: 100, bytesSent: 0, bytesReceived: 0, errors: 0 },
    histograms: { rttUs: encodeHistogram(rtt) },
    health: { cpuPercent: 10, eventLoopP99Ms: 1, rssBytes: 1, saturated: false },
    ...(step !== undefined ? { step } : {}),
  };
}

describe("the standalone agent's automatic search", () => {
  it("judges each step on its own seconds, pushes the next level at the step's end, and ends the run after the fine break", () => {
    const feed = createSearchFeed();
    const levels: SearchLevel[] = [];
    feed.onLevel((level) => levels.push(level));
    const ends: string[] = [];
    const search = createLocalSearch({ plan, feed, onEnd: (reason) => ends.push(reason), log: () => undefined })!;
    // Play the engine: every second at the latest level, labelled with its step while within its hold.
    let current: SearchLevel = { step: 0, clients: 10, phase: "coarse", startAt: START };
    for (let seq = 0; seq < 60 && ends.length === 0; seq++) {
      const at = START + seq * 1000;
      current = [...levels].reverse().find((l) => l.startAt <= at) ?? current;
      const inHold = at < current.startAt + 3_000;
      search.onSnapshot(second(seq, current.clients, inHold ? current.step : undefined));
    }
    // Coarse 10, 20, 30, 40 (broke); settle back at 30 (held); fine 32 (held), 34 (broke).
    expect(levels.map((l) => [l.clients, l.phase])).toEqual([[20, "coarse"], [30, "coarse"], [40, "coarse"], [30, "settle"], [32, "fine"], [34, "fine"]]);
    expect(levels.map((l) => l.startAt - START)).toEqual([3_000, 6_000, 9_000, 12_000, 15_000, 18_000]);
    expect(ends).toEqual(["fine-step-broke"]);
    expect(searchVerdictText(search.judged())).toBe("capacity search: holds 32 clients (fine step); broke at 34");
  });

  it("is not there for a plan that is not an automatic search", () => {
    const fixed = PlanSpec.parse({ ...plan, load: { clients: 50, durationSec: 60, shape: { kind: "step-up", startClients: 10, stepClients: 10, stepDurationSec: 3 } } });
    expect(createLocalSearch({ plan: fixed, feed: createSearchFeed(), onEnd: () => undefined, log: () => undefined })).toBeNull();
  });
});
