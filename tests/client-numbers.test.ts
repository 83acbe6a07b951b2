import { describe, expect, it } from "vitest";
import type { RunAssignment } from "@throng/protocol/agent";
import type { LoadShape, PlanSpec, Scenario } from "@throng/protocol/plan";

type Shape = NonNullable<LoadShape["shape"]>;
import { clientsBefore, roomUnit, splitClients } from "@throng/core/runs/shards";
import { engineAssignments } from "@throng/agent/engine/engines";
import { createLoadSchedule } from "@throng/agent/engine/load-schedule";

// {{client}} is the run-wide client number (docs/protocols.md, "Placeholders"): the control plane splits the plan's
// clients over agents (core's shards.ts), each agent over its engine processes (engines.ts), and each engine's ramp
// starts its clients 0, 1, … which run-shard.ts numbers from the engine's clientsBefore. These tests follow one plan
// down that chain and read the numbers every engine would give its running clients at each moment.

const pingPong: Scenario = { kind: "ping-pong", intervalMs: 1000 };
const rooms = (roomSize: number): Scenario => ({ kind: "movement-sync", roomSize, updateHz: 10 });

function planOf(clients: number, scenario: Scenario, shape?: Shape): PlanSpec {
  return {
    name: "numbers",
    target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
    scenario,
    load: { clients, durationSec: 60, rampUpSec: 0, ...(shape ? { shape } : {}) },
  } as PlanSpec;
}

/** Every engine part of the run: agents (by their cores) split by core's shards.ts, each agent by engineAssignments. */
function engineParts(plan: PlanSpec, agentCores: number[], engines: number): RunAssignment[] {
  const shards = splitClients(
    plan.load.clients,
    agentCores.map((cores, i) => ({ agentId: `a${i}`, cores })),
    roomUnit(plan.scenario),
  );
  return shards.flatMap((shard) =>
    engineAssignments(
      {
        runId: "4f2b8c1d-6e3a-4d5b-9c7f-1a2b3c4d5e6f",
        shardIndex: shard.shardIndex,
        shardCount: shards.length,
        clients: shard.clients,
        clientsBefore: clientsBefore(shards, shard),
        startAt: 0,
        plan,
      },
      engines,
    ),
  );
}

/** The numbers each engine's running clients carry `elapsedMs` into the run: its ramp starts local 0, 1, … up to the schedule's count. */
function runningNumbers(parts: RunAssignment[], elapsedMs: number, level?: number): number[][] {
  return parts.map((part) => {
    const schedule = createLoadSchedule(part.plan.load, part.plan.scenario, part.clients, {
      runStartAt: 0,
      clientsBefore: part.clientsBefore ?? 0,
    });
    if (level !== undefined) schedule.hold!({ step: 1, clients: level, phase: "coarse", startAt: 0 });
    const running = Math.min(part.clients, schedule.clientsAt(elapsedMs));
    return Array.from({ length: running }, (_, i) => (part.clientsBefore ?? 0) + i);
  });
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const sorted = (lists: number[][]) => lists.flat().sort((a, b) => a - b);

describe("one client, one number: {{client}} across agents and engines", () => {
  it.each([
    { clients: 10, agents: [1], engines: 2 },
    { clients: 10, agents: [2, 2], engines: 2 },
    { clients: 1_003, agents: [2, 1, 4], engines: 3 },
    { clients: 7, agents: [1, 1, 1, 1], engines: 4 },
  ])(
    "$clients clients on agents with $agents cores and $engines engines each: numbers 0 … N−1, each once",
    ({ clients, agents, engines }) => {
      const parts = engineParts(planOf(clients, pingPong), agents, engines);
      expect(parts.length).toBeGreaterThan(1);
      expect(sorted(runningNumbers(parts, 1_000))).toEqual(range(clients));
    },
  );

  it("rooms stay whole: every number of a room ({{room}} = floor(client / roomSize)) runs on one engine, and the rooms are 0 … R−1", () => {
    const roomSize = 8;
    const parts = engineParts(planOf(100, rooms(roomSize)), [2, 2, 1], 3);
    const engineOfRoom = new Map<number, number>();
    for (const [engine, numbers] of runningNumbers(parts, 1_000).entries()) {
      for (const client of numbers) {
        const room = Math.floor(client / roomSize);
        expect(engineOfRoom.get(room) ?? engine, `room ${room} spans engines`).toBe(engine);
        engineOfRoom.set(room, engine);
      }
    }
    expect([...engineOfRoom.keys()].sort((a, b) => a - b)).toEqual(range(Math.ceil(100 / roomSize)));
  });

  it("a capacity search's levels: each level runs exactly that many clients, none twice, and a client keeps its number from level to level", () => {
    const shape: Shape = { kind: "step-up", mode: "auto", startClients: 10, stepDurationSec: 10 };
    const parts = engineParts(planOf(600, pingPong, shape), [2, 1], 2);
    let previous = new Set<number>();
    for (const level of [10, 85, 333, 600, 471, 512]) {
      const numbers = sorted(runningNumbers(parts, 0, level));
      expect(numbers.length).toBe(level);
      expect(new Set(numbers).size).toBe(level);
      expect(numbers.every((n) => n >= 0 && n < 600)).toBe(true);
      // Going up adds numbers, coming down removes some: a client still running has the number it had.
      const kept = numbers.filter((n) => previous.has(n));
      expect(kept.length).toBe(Math.min(level, previous.size));
      previous = new Set(numbers);
    }
  });

  it("a ramp-down and back up (stages): the clients that come back take the numbers they had, never new ones", () => {
    const shape: Shape = {
      kind: "stages",
      stages: [
        { durationSec: 10, clients: 400 },
        { durationSec: 10, clients: 100 },
        { durationSec: 10, clients: 400 },
      ],
    };
    const parts = engineParts(planOf(400, pingPong, shape), [1, 1, 1], 2);
    const atPeak = sorted(runningNumbers(parts, 10_000));
    const atTrough = sorted(runningNumbers(parts, 20_000));
    const again = sorted(runningNumbers(parts, 30_000));
    expect(atPeak).toEqual(range(400));
    expect(atTrough.length).toBe(100);
    expect(atTrough.every((n) => atPeak.includes(n))).toBe(true);
    expect(again).toEqual(atPeak);
  });
});
