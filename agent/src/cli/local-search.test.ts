import { describe, expect, it } from "vitest";
import type { SearchLevel } from "@throng/protocol/capacity-search";
import { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { createSearchFeed } from "../engine/search-feed";
import { createLatencyHistogram, encodeHistogram, recordMicros } from "../metrics/histogram";
import { zeroCounters } from "@throng/protocol/snapshot";
import { createLocalSearch, searchVerdictText } from "./local-search";

const START = 1_000_000;
const plan = PlanSpec.parse({
  name: "search",
  target: { protocol: "websocket", url: "ws://127.0.0.1:1/ws" },
  scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
  load: {
    clients: 50,
    durationSec: 120,
    shape: { kind: "step-up", mode: "auto", startClients: 10, stepDurationSec: 3, coarseSteps: 5, fineSteps: 5 },
  },
  slos: [{ metric: "rtt-p99-ms", below: 100 }],
});

/**
 * A second of a server that answers in 10 ms up to 32 clients and in 200 ms past that, or in 200 ms anyway when
 * `slow` (a transient); `open` connections at its end (all of them unless said).
 */
function second(
  seq: number,
  clients: number,
  step: number | undefined,
  { open = clients, slow = false } = {},
): MetricSnapshot {
  const rtt = createLatencyHistogram();
  for (let i = 0; i < 100; i++) recordMicros(rtt, clients <= 32 && !slow ? 10_000 : 200_000);
  return {
    runId: "00000000-0000-4000-8000-000000000009",
    seq,
    intervalStart: START + seq * 1000,
    intervalMs: 1000,
    clients,
    counters: { ...zeroCounters(open), messagesSent: 100, messagesReceived: 100 },
    histograms: { rttUs: encodeHistogram(rtt) },
    health: { cpuPercent: 10, eventLoopP99Ms: 1, rssBytes: 1, saturated: false },
    ...(step !== undefined ? { step } : {}),
  };
}

/**
 * Plays the engine against the local search: every second at the latest level, labelled with its step while
 * within its hold; `tweak` changes a second (its seq) before the search sees it. The levels pushed, and how it ended.
 */
function play(tweak: (seq: number) => { open?: number; slow?: boolean } = () => ({})) {
  const feed = createSearchFeed();
  const levels: SearchLevel[] = [];
  feed.onLevel((level) => levels.push(level));
  const ends: string[] = [];
  const lines: string[] = [];
  const search = createLocalSearch({
    plan,
    feed,
    onEnd: (reason) => ends.push(reason),
    log: (line) => lines.push(line),
  })!;
  let current: SearchLevel = { step: 0, clients: 10, phase: "coarse", startAt: START };
  for (let seq = 0; seq < 60 && ends.length === 0; seq++) {
    const at = START + seq * 1000;
    current = [...levels].reverse().find((l) => l.startAt <= at) ?? current;
    const inHold = at < current.startAt + 3_000;
    search.onSnapshot(second(seq, current.clients, inHold ? current.step : undefined, tweak(seq)));
  }
  return { levels, ends, lines, verdict: searchVerdictText(search.judged()), judged: search.judged() };
}

describe("the standalone agent's automatic search", () => {
  it("judges each step on its own seconds, pushes the next level at the step's end, and ends the run after the fine break", () => {
    const { levels, ends, verdict } = play();
    // Coarse 10, 20, 30, 40 (broke); settle back at 30 (held); fine 32 (held), 34 (broke).
    expect(levels.map((l) => [l.clients, l.phase])).toEqual([
      [20, "coarse"],
      [30, "coarse"],
      [40, "coarse"],
      [30, "settle"],
      [32, "fine"],
      [34, "fine"],
    ]);
    expect(levels.map((l) => l.startAt - START)).toEqual([3_000, 6_000, 9_000, 12_000, 15_000, 18_000]);
    expect(ends).toEqual(["fine-step-broke"]);
    expect(verdict).toBe("capacity search: holds 32 clients (fine step); broke at 34");
  });

  it("leaves out a first step's seconds while its connections were still opening (a connect spike), and climbs on", () => {
    // The 10 connections are 4 open by the first second's end and all open only by the second's; both seconds are slow.
    const { levels, ends, verdict } = play((seq) =>
      seq === 0 ? { open: 4, slow: true } : seq === 1 ? { slow: true } : {},
    );
    expect(levels[0]).toMatchObject({ step: 1, clients: 20, phase: "coarse" });
    expect(ends).toEqual(["fine-step-broke"]);
    expect(verdict).toBe("capacity search: holds 32 clients (fine step); broke at 34");
  });

  it("holds the first level again when it broke on a transient in its steady seconds, and says so", () => {
    const { levels, lines, judged, verdict } = play((seq) => (seq === 2 ? { slow: true } : {}));
    expect(levels.slice(0, 2).map((l) => [l.step, l.clients, l.phase])).toEqual([
      [1, 10, "coarse"],
      [2, 20, "coarse"],
    ]);
    expect(judged.slice(0, 2).map((s) => [s.clients, s.held, s.retry ?? false])).toEqual([
      [10, false, false],
      [10, true, true],
    ]);
    expect(lines[0]).toBe("search: step 0 (coarse, 10 clients) broke; next step, the first level again: 10 clients");
    expect(lines[1]).toBe("search: step 1 (retry, 10 clients) held; next coarse step: 20 clients");
    expect(verdict).toBe("capacity search: holds 32 clients (fine step); broke at 34");
  });

  it("ends, below the first level, only when every try of it broke", () => {
    const { levels, ends, verdict } = play(() => ({ slow: true }));
    expect(levels.map((l) => [l.clients, l.phase])).toEqual([
      [10, "coarse"],
      [10, "coarse"],
    ]);
    expect(ends).toEqual(["first-step-broke"]);
    expect(verdict).toBe("capacity search: no step held in 3 tries; capacity is below 10 clients");
  });

  it("does not say it holds a level the server did not hold again after the break", () => {
    const settle = { clients: 30, phase: "settle" as const, held: false };
    const judged = [10, 20, 30].map((clients) => ({ clients, phase: "coarse" as const, held: true }));
    expect(searchVerdictText([...judged, { clients: 40, phase: "coarse", held: false }, settle, settle, settle])).toBe(
      "capacity search: no valid estimate: 30 clients held before the break at 40, but the server did not recover (30 did not hold again after it); capacity is between 20 and 30 clients",
    );
  });

  it("is not there for a plan that is not an automatic search", () => {
    const fixed = PlanSpec.parse({
      ...plan,
      load: {
        clients: 50,
        durationSec: 60,
        shape: { kind: "step-up", startClients: 10, stepClients: 10, stepDurationSec: 3 },
      },
    });
    expect(
      createLocalSearch({ plan: fixed, feed: createSearchFeed(), onEnd: () => undefined, log: () => undefined }),
    ).toBeNull();
  });
});
