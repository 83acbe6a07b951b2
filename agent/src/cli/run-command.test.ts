import { describe, expect, it } from "vitest";
import type { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { createLatencyHistogram, encodeHistogram, recordMicros } from "../metrics/histogram";
import { exitCodeForVerdict, fdWarning, fixedStepEstimate, loopbackSourceAddresses, searchEstimate } from "./run-command";

const plan = (clients: number, url = "ws://127.0.0.1:7070/ws"): PlanSpec => ({
  name: "p",
  target: { protocol: "websocket", url },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
  load: { clients, durationSec: 10, rampUpSec: 0 },
});

describe("run command checks", () => {
  it("warns when one engine's connections would pass the open-file limit", () => {
    expect(fdWarning(19_500, 20_000)).toBeUndefined();
    expect(fdWarning(25_000, 20_000)).toMatch(/open-file limit is 20000/);
  });

  it("spreads a big loopback plan over 127.0.0.x source addresses (the engine's own ports), and leaves others alone", () => {
    expect(loopbackSourceAddresses(plan(60_000))).toEqual(["127.0.0.2", "127.0.0.3", "127.0.0.4"]);
    expect(loopbackSourceAddresses(plan(19_500))).toEqual(["127.0.0.2"]);
    expect(loopbackSourceAddresses(plan(10_000))).toBeUndefined();
    expect(loopbackSourceAddresses(plan(60_000, "ws://10.0.0.5:7070/ws"))).toBeUndefined();
    // KCP binds a UDP socket per client, as UDP does: more addresses only past one address's ports, from 127.0.0.1.
    const kcp = (clients: number): PlanSpec => ({ ...plan(clients), target: { protocol: "kcp", host: "127.0.0.1", port: 7400 } });
    expect(loopbackSourceAddresses(kcp(19_500))).toBeUndefined();
    expect(loopbackSourceAddresses(kcp(60_000))).toEqual(["127.0.0.1", "127.0.0.2", "127.0.0.3"]);
  });
});

describe("standalone verdicts", () => {
  const snapshot = (seq: number, step: number, clients: number, rttUs: number): MetricSnapshot => {
    const histogram = createLatencyHistogram();
    for (let i = 0; i < 100; i++) recordMicros(histogram, rttUs);
    return {
      runId: "00000000-0000-4000-8000-000000000000", seq, intervalStart: 1_800_000_000_000 + seq * 1000, intervalMs: 1000, clients, step,
      counters: { connectionsOpen: clients, connectionsOpened: 0, connectionsFailed: 0, connectionsClosed: 0, messagesSent: 100, messagesReceived: 100, bytesSent: 0, bytesReceived: 0, errors: 0 },
      histograms: { rttUs: encodeHistogram(histogram) }, health: { cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 },
    };
  };

  it("a fixed step-up is judged by the largest step that held before the first that broke, its first second left out", () => {
    const stepped: PlanSpec = { ...plan(30), load: { clients: 30, durationSec: 9, rampUpSec: 0, shape: { kind: "step-up", startClients: 10, stepClients: 10, stepDurationSec: 3 } }, slos: [{ metric: "rtt-p99-ms", below: 50 }] };
    // Each step's first second is slow (still connecting): it must not break the step.
    const seconds = [[0, 10], [1, 20], [2, 30]].flatMap(([step, clients]) => [0, 1, 2].map((i) => snapshot(step! * 3 + i, step!, clients!, i === 0 || step === 2 ? 90_000 : 2_000)));
    expect(fixedStepEstimate(stepped, seconds)).toEqual({
      valid: true, clients: 20, problems: [], steps: [{ step: 0, clients: 10, held: true }, { step: 1, clients: 20, held: true }, { step: 2, clients: 30, held: false }],
    });
    expect(fixedStepEstimate(plan(30), seconds)).toBeUndefined();
  });

  it("an automatic search that ended with the server not recovering has no valid estimate", () => {
    expect(searchEstimate([{ clients: 10, phase: "coarse", held: true }, { clients: 20, phase: "coarse", held: false }, { clients: 10, phase: "settle", held: false }]).valid).toBe(false);
    expect(searchEstimate([{ clients: 10, phase: "coarse", held: true }, { clients: 20, phase: "coarse", held: false }])).toEqual({
      valid: true, clients: 10, problems: [], noLevelHeld: false, steps: [{ step: 0, clients: 10, held: true }, { step: 1, clients: 20, held: false }],
    });
  });

  it("maps outcomes to exit codes: 0 passed, 5 breached, 6 incomplete", () => {
    const verdict = (outcome: "passed" | "breached" | "incomplete" | "failed") => ({ passed: outcome === "passed", outcome, reasons: [], warnings: [], slos: [] });
    expect([exitCodeForVerdict(verdict("passed")), exitCodeForVerdict(verdict("breached")), exitCodeForVerdict(verdict("incomplete")), exitCodeForVerdict(verdict("failed"))]).toEqual([0, 5, 6, 1]);
  });
});
