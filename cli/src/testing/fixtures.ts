import type { RunView } from "@throng/protocol/run";
import { parsePlan } from "@throng/wire/plan-reader";

/** A minimal valid plan as plan-file text. */
export const PLAN_YAML = `
name: lobby smoke
target: { protocol: websocket, url: "ws://127.0.0.1:7070/ws" }
scenario: { kind: ping-pong, intervalMs: 100, messageBytes: 64 }
load: { clients: 5, durationSec: 2 }
slos:
  - { metric: rtt-p99-ms, below: 50 }
`;

/** A finished run of PLAN_YAML's plan as GET /api/runs/:id returns it; tests override what they are about. */
export function finishedRun(overrides: Partial<RunView> = {}): RunView {
  return {
    id: "11111111-1111-4111-8111-111111111111",
    planId: "22222222-2222-4222-8222-222222222222",
    planName: "lobby smoke",
    status: "finished",
    spec: parsePlan(PLAN_YAML, "plan.yaml"),
    error: null,
    createdAt: "2026-11-22T04:00:00.000Z",
    startedAt: "2026-11-22T04:00:01.000Z",
    endedAt: "2026-11-22T04:00:03.000Z",
    summary: {
      agents: 1,
      peakClients: 5,
      peakConnections: 5,
      durationSec: 2,
      messagesSent: 100,
      messagesReceived: 100,
      messagesPerSec: 50,
      connectionsFailed: 0,
      errors: 0,
      rttP50Ms: 2,
      rttP99Ms: 3,
      rttMaxMs: 4,
    },
    events: [],
    note: "",
    tags: [],
    notesEditedBy: null,
    notesEditedAt: null,
    verdict: {
      passed: true,
      outcome: "passed",
      reasons: [],
      warnings: [],
      slos: [
        {
          metric: "rtt-p99-ms",
          below: 50,
          value: 3,
          status: "met",
          passed: true,
          breachedSeconds: 0,
          measuredSeconds: 2,
          firstBreachAt: null,
        },
      ],
    },
    capacity: null,
    ...overrides,
  };
}

export const BREACHED_VERDICT: NonNullable<RunView["verdict"]> = {
  passed: false,
  outcome: "breached",
  reasons: ["SLO breached: rtt-p99-ms (82.5, must be below 50)"],
  warnings: [],
  slos: [
    {
      metric: "rtt-p99-ms",
      below: 50,
      value: 82.5,
      status: "breached",
      passed: false,
      breachedSeconds: 2,
      measuredSeconds: 2,
      firstBreachAt: 1_795_320_001,
    },
  ],
};

/** A finished run whose load stopped sending part-way: its SLO held on the seconds it had, and it must not pass. */
export const INCOMPLETE_VERDICT: NonNullable<RunView["verdict"]> = {
  passed: false,
  outcome: "incomplete",
  reasons: [
    "the load fell short of its schedule: 1600 of 2400 scheduled messages sent, 4 of 12 seconds more than 10% short",
    "SLO without data: rtt-p99-ms (no round trip was measured in 4 of 12 seconds under load)",
  ],
  warnings: [],
  slos: [
    {
      metric: "rtt-p99-ms",
      below: 50,
      value: 3,
      status: "no-data",
      note: "no round trip was measured in 4 of 12 seconds under load",
      passed: false,
      breachedSeconds: 0,
      measuredSeconds: 8,
      firstBreachAt: null,
    },
  ],
};
