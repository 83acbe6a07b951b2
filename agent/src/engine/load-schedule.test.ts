import { describe, expect, it } from "vitest";
import type { LoadShape } from "@throng/protocol/plan";
import { splitClients } from "./engines";
import { createLoadSchedule } from "./load-schedule";

const pingPong = { kind: "ping-pong" as const, intervalMs: 1000, messageBytes: 64 };
const load = (extra: Partial<LoadShape>): LoadShape => ({ clients: 100, durationSec: 60, rampUpSec: 0, ...extra });

describe("load schedules", () => {
  it("ramps stages linearly and back down", () => {
    const schedule = createLoadSchedule(
      load({
        shape: {
          kind: "stages",
          stages: [
            { clients: 100, durationSec: 10 },
            { clients: 100, durationSec: 10 },
            { clients: 0, durationSec: 10 },
          ],
        },
      }),
      pingPong,
      100,
    );
    expect([0, 5_000, 10_000, 15_000, 25_000, 31_000].map((t) => schedule.clientsAt(t))).toEqual([
      0, 50, 100, 100, 50, 0,
    ]);
    expect(schedule.rampsDown).toBe(true);
  });

  it("scales a plan-wide shape to the shard's share", () => {
    const schedule = createLoadSchedule(
      load({ shape: { kind: "stages", stages: [{ clients: 100, durationSec: 10 }] } }),
      pingPong,
      25,
    );
    expect(schedule.clientsAt(10_000)).toBe(25);
  });

  it("steps up by stepClients every stepDurationSec and names the step", () => {
    const schedule = createLoadSchedule(
      load({ shape: { kind: "step-up", startClients: 10, stepClients: 20, stepDurationSec: 5 } }),
      pingPong,
      100,
    );
    expect([0, 4_999, 5_000, 12_000, 60_000].map((t) => schedule.clientsAt(t))).toEqual([10, 10, 30, 50, 100]);
    expect(schedule.stepAt!(12_000)).toBe(2);
  });

  it("arrival rate, join interval and plain ramp-up", () => {
    expect(
      createLoadSchedule(load({ shape: { kind: "arrival-rate", clientsPerSec: 10 } }), pingPong, 100).clientsAt(2_500),
    ).toBe(26);
    expect(createLoadSchedule(load({ joinIntervalMs: 50 }), pingPong, 100).clientsAt(1_000)).toBe(21);
    expect(createLoadSchedule(load({ rampUpSec: 10 }), pingPong, 100).clientsAt(5_000)).toBe(51);
    expect(createLoadSchedule(load({}), { kind: "login-storm", connectsPerSec: 1000 }, 100).clientsAt(50)).toBe(51);
  });

  it("splits clients over engines, keeping movement-sync rooms whole", () => {
    expect(splitClients(10, 3)).toEqual([3, 3, 4]);
    expect(splitClients(10, 2, 4)).toEqual([4, 6]);
    expect(splitClients(3, 8)).toEqual([1, 1, 1]);
  });
});

describe("load schedules split across engines", () => {
  it("engines following one step-up plan add up to the plan's curve", () => {
    const plan = load({ clients: 6, shape: { kind: "step-up", startClients: 2, stepClients: 2, stepDurationSec: 1 } });
    const parts = splitClients(6, 2).map((clients) => createLoadSchedule(plan, pingPong, clients));
    expect([0, 1_000, 2_000].map((t) => parts.reduce((sum, s) => sum + s.clientsAt(t), 0))).toEqual([2, 4, 6]);
  });

  it("shards add up to exactly the plan's count at every level, odd ones too", () => {
    const plan = load({
      clients: 30,
      shape: { kind: "step-up", startClients: 11, stepClients: 2, stepDurationSec: 1 },
    });
    const sizes = [10, 10, 10];
    const parts = sizes.map((clients, i) =>
      createLoadSchedule(plan, pingPong, clients, { clientsBefore: sizes.slice(0, i).reduce((a, b) => a + b, 0) }),
    );
    expect([0, 1_000, 2_000, 9_000].map((t) => parts.reduce((sum, s) => sum + s.clientsAt(t), 0))).toEqual([
      11, 13, 15, 29,
    ]);
  });
});

describe("automatic capacity search schedule", () => {
  const plan = load({ clients: 100, shape: { kind: "step-up", mode: "auto", startClients: 20, stepDurationSec: 5 } });
  it("holds the first level, then each level it is told from its start, back down too, and names steps only within their hold", () => {
    const schedule = createLoadSchedule(plan, pingPong, 100, { runStartAt: 1_000_000 });
    expect(schedule.clientsAt(60_000)).toBe(20); // told nothing yet: it holds
    expect(schedule.stepAt!(4_000)).toBe(0);
    expect(schedule.stepAt!(5_000)).toBeUndefined(); // waiting for the next decision
    schedule.hold!({ step: 1, clients: 60, phase: "coarse", startAt: 1_006_000 });
    schedule.hold!({ step: 2, clients: 40, phase: "fine", startAt: 1_011_000 });
    schedule.hold!({ step: 1, clients: 99, phase: "coarse", startAt: 1_006_000 }); // a repeat changes nothing
    expect([5_500, 6_000, 10_999, 11_000, 30_000].map((t) => schedule.clientsAt(t))).toEqual([20, 60, 60, 40, 40]);
    expect([6_000, 10_999, 11_000, 16_000].map((t) => schedule.stepAt!(t))).toEqual([1, 1, 2, undefined]);
    expect(schedule.rampsDown).toBe(true);
  });
});
