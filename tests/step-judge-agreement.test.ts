// One judge for a capacity step (issue 29): `throng-agent run` and the control plane judge the same seconds of a
// step the same way. Before, the agent checked its own summary (a movement-sync loss rate of sequence gaps ÷
// broadcasts expected) while the control plane read 1 − reach, so a step where half the room's broadcasts never
// arrived held standalone and broke in CI.
import { describe, expect, it } from "vitest";
import { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { measureStep } from "@throng/wire/capacity-step";
import { storedSnapshot } from "@throng/wire/snapshot-merge";
import { fixedStepEstimate } from "../agent/src/cli/run-command";
import { createSnapshotBuilder } from "../agent/src/metrics/snapshot-builder";

const runId = "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e";
const agentId = "0b8f2a55-3c1d-4e6f-8a9b-1c2d3e4f5a6b";
const health = { sample: () => ({ cpuPercent: 10, eventLoopP99Ms: 1, rssBytes: 100, saturated: false }), stop() {} };

/** A movement-sync step of 10 players: every update expects 9 broadcasts, `heard` of them arrive, none out of sequence. */
function step(seconds: number, heard: number): MetricSnapshot[] {
  const builder = createSnapshotBuilder({ runId, health });
  const out: MetricSnapshot[] = [];
  for (let seq = 0; seq < seconds; seq++) {
    if (seq === 0) for (let c = 0; c < 10; c++) builder.metrics.connectionOpened(1000);
    for (let update = 0; update < 10; update++) {
      builder.metrics.messageSent(64);
      builder.metrics.broadcastsExpected(9);
      for (let i = 0; i < heard; i++) builder.metrics.broadcastMicros(2000);
    }
    out.push({
      ...builder.take({ seq, intervalStart: 1_700_000_000_000 + seq * 1000, intervalMs: 1000, clients: 10 }),
      step: 0,
    });
  }
  return out;
}

/** The snapshot as the control plane stores it (core's ingest), its cohorts' figures with it. */
const stored = (snapshot: MetricSnapshot) => storedSnapshot(agentId, snapshot);

/** The same step with a network cohort "mobile" of 3 players, `heard` of whose 9 broadcasts per update arrive. */
function withMobile(snapshots: MetricSnapshot[], heard: number): MetricSnapshot[] {
  const mobile = step(snapshots.length, heard);
  return snapshots.map((snapshot, i) => {
    const part = mobile[i]!;
    return {
      ...snapshot,
      cohorts: {
        mobile: { clients: 3, counters: part.counters, histograms: part.histograms, applied: "datagram" as const },
      },
    };
  });
}

const plan = PlanSpec.parse({
  name: "room",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "movement-sync", roomSize: 10, updateHz: 10 },
  load: {
    clients: 10,
    durationSec: 5,
    shape: { kind: "step-up", startClients: 10, stepClients: 10, stepDurationSec: 5 },
  },
  slos: [{ metric: "loss-rate", below: 0.1 }],
});

describe("a capacity step is judged the same standalone and under the control plane", () => {
  it("half the room's broadcasts never arrived (no sequence gap): the step breaks its loss-rate SLO on both", () => {
    const snapshots = step(5, 4);
    const controlPlane = measureStep(0, snapshots.map(stored), plan.slos ?? []);
    const standalone = fixedStepEstimate(plan, snapshots);
    expect(controlPlane.held).toBe(false);
    expect(standalone?.steps?.map((s) => s.held)).toEqual([controlPlane.held]);
  });

  it("every broadcast arrived: the step holds on both", () => {
    const snapshots = step(5, 9);
    const controlPlane = measureStep(0, snapshots.map(stored), plan.slos ?? []);
    const standalone = fixedStepEstimate(plan, snapshots);
    expect(controlPlane.held).toBe(true);
    expect(standalone?.steps?.map((s) => s.held)).toEqual([true]);
  });

  it("a network cohort's loss-rate SLO is judged on the cohort's figures on both: the room holds, its mobile players do not", () => {
    const snapshots = withMobile(step(5, 9), 4);
    const slos = [
      { metric: "loss-rate" as const, below: 0.1 },
      { metric: "loss-rate" as const, below: 0.1, cohort: "mobile" },
    ];
    const cohortPlan = PlanSpec.parse({ ...plan, network: [{ name: "mobile", clients: 3, delayMs: 50 }], slos });
    const controlPlane = measureStep(0, snapshots.map(stored), cohortPlan.slos ?? []);
    expect(controlPlane.slos.map((v) => [v.cohort, v.status])).toEqual([
      [undefined, "met"],
      ["mobile", "breached"],
    ]);
    expect(fixedStepEstimate(cohortPlan, snapshots)?.steps?.map((s) => s.held)).toEqual([false]);
  });
});
