import { describe, expect, it } from "vitest";
import type { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { createLatencyHistogram, encodeHistogram, recordMicros } from "../metrics/histogram";
import { zeroCounters } from "@throng/protocol/snapshot";
import { exitCodeForVerdict, fixedStepEstimate, searchEstimate } from "./run-command";

const plan = (clients: number): PlanSpec => ({
  name: "p",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
  load: { clients, durationSec: 10, rampUpSec: 0 },
});

describe("standalone verdicts", () => {
  const snapshot = (seq: number, step: number, clients: number, rttUs: number): MetricSnapshot => {
    const histogram = createLatencyHistogram();
    for (let i = 0; i < 100; i++) recordMicros(histogram, rttUs);
    return {
      runId: "00000000-0000-4000-8000-000000000000",
      seq,
      intervalStart: 1_800_000_000_000 + seq * 1000,
      intervalMs: 1000,
      clients,
      step,
      counters: { ...zeroCounters(clients), messagesSent: 100, messagesReceived: 100 },
      histograms: { rttUs: encodeHistogram(histogram) },
      health: { cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 },
    };
  };

  it("a fixed step-up is judged by the largest step that held before the first that broke, its first second left out", () => {
    const stepped: PlanSpec = {
      ...plan(30),
      load: {
        clients: 30,
        durationSec: 9,
        rampUpSec: 0,
        shape: { kind: "step-up", startClients: 10, stepClients: 10, stepDurationSec: 3 },
      },
      slos: [{ metric: "rtt-p99-ms", below: 50 }],
    };
    // Each step's first second is slow (still connecting): it must not break the step.
    const seconds = [
      [0, 10],
      [1, 20],
      [2, 30],
    ].flatMap(([step, clients]) =>
      [0, 1, 2].map((i) => snapshot(step! * 3 + i, step!, clients!, i === 0 || step === 2 ? 90_000 : 2_000)),
    );
    expect(fixedStepEstimate(stepped, seconds)).toEqual({
      valid: true,
      clients: 20,
      problems: [],
      steps: [
        { step: 0, clients: 10, held: true },
        { step: 1, clients: 20, held: true },
        { step: 2, clients: 30, held: false },
      ],
    });
    expect(fixedStepEstimate(plan(30), seconds)).toBeUndefined();
  });

  it("an automatic search that ended with the server not recovering has no valid estimate", () => {
    expect(
      searchEstimate([
        { clients: 10, phase: "coarse", held: true },
        { clients: 20, phase: "coarse", held: false },
        { clients: 10, phase: "settle", held: false },
      ]).valid,
    ).toBe(false);
    expect(
      searchEstimate([
        { clients: 10, phase: "coarse", held: true },
        { clients: 20, phase: "coarse", held: false },
      ]),
    ).toEqual({
      valid: true,
      clients: 10,
      problems: [],
      noLevelHeld: false,
      steps: [
        { step: 0, clients: 10, held: true },
        { step: 1, clients: 20, held: false },
      ],
    });
  });

  it("maps outcomes to exit codes: 0 passed, 5 breached, 6 incomplete", () => {
    const verdict = (outcome: "passed" | "breached" | "incomplete" | "failed") => ({
      passed: outcome === "passed",
      outcome,
      reasons: [],
      warnings: [],
      slos: [],
    });
    expect([
      exitCodeForVerdict(verdict("passed")),
      exitCodeForVerdict(verdict("breached")),
      exitCodeForVerdict(verdict("incomplete")),
      exitCodeForVerdict(verdict("failed")),
    ]).toEqual([0, 5, 6, 1]);
  });
});
