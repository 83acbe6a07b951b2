import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { MovementSyncScenario } from "@throng/protocol/plan";
import { createSnapshotBuilder } from "../metrics/snapshot-builder";
import type { Transport } from "../transports/transport";
import { createScriptedTransport } from "../testing/fake-transport";
import { createMovementSync } from "./movement-sync";

const runId = "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e";

/** Answers a join with "joined" (twice, as a confused server might) and swallows the updates. */
const roomServer = () =>
  createScriptedTransport(
    (message) => (message.includes('"join"') ? ['{"type":"joined"}', '{"type":"joined"}'] : []),
    queueMicrotask,
  );

/** A snapshot builder whose health reads zero: these tests read its counters only. */
const countersBuilder = () =>
  createSnapshotBuilder({
    runId,
    health: { sample: () => ({ cpuPercent: 0, eventLoopP99Ms: 0, rssBytes: 0 }), stop() {} },
  });

/** Rooms of 2 at 20 Hz (and `extra`) over `transport`, counting into a builder whose counters the test reads. */
function roomsOfTwo(transport: Transport, extra: Partial<MovementSyncScenario> = {}) {
  const builder = countersBuilder();
  const runner = createMovementSync(
    { kind: "movement-sync", roomSize: 2, updateHz: 20, ...extra },
    { transport, metrics: builder.metrics },
  );
  return { builder, runner };
}

/** Starts `players` players and returns the run's second snapshot: the first second holds their joins. */
async function secondSecond(
  runner: ReturnType<typeof createMovementSync>,
  builder: ReturnType<typeof createSnapshotBuilder>,
  players: number,
) {
  for (let i = 0; i < players; i += 1) runner.startClient(i);
  await vi.advanceTimersByTimeAsync(1_000);
  builder.take({ seq: 0, intervalStart: 0, intervalMs: 1_000, clients: players });
  await vi.advanceTimersByTimeAsync(1_000);
  return builder.take({ seq: 1, intervalStart: 1_000, intervalMs: 1_000, clients: players });
}

describe("movement-sync's send schedule", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] }));
  afterEach(() => vi.useRealTimers());

  it("counts updateHz per joined player as scheduled sends, and makes them (one send loop per player)", async () => {
    const { builder, runner } = roomsOfTwo(roomServer().transport);
    const second = await secondSecond(runner, builder, 4);
    expect(second.counters.scheduledSends).toBe(80);
    expect(Math.abs(second.counters.messagesSent - 80)).toBeLessThanOrEqual(1);
    await runner.close();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(builder.take({ seq: 2, intervalStart: 2_000, intervalMs: 1_000, clients: 0 }).counters.scheduledSends).toBe(
      0,
    );
  });
});

describe("movement-sync's heartbeat", () => {
  beforeEach(() =>
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance"] }),
  );
  afterEach(() => vi.useRealTimers());

  it("sends the heartbeat template on its own timer once a player has joined, counted in the schedule, and stops with the player", async () => {
    const { transport, sent } = roomServer();
    const { builder, runner } = roomsOfTwo(transport, {
      heartbeat: { intervalMs: 250, message: { body: "HB {{client}} {{room}}" } },
    });
    const second = await secondSecond(runner, builder, 2);
    // 20 updates and 4 heartbeats a second per player.
    expect(second.counters.scheduledSends).toBe(48);
    expect(Math.abs(second.counters.messagesSent - 48)).toBeLessThanOrEqual(2);
    expect(sent.filter((m) => m.startsWith("HB 1 ")).length).toBe(8);
    expect(sent.find((m) => m.startsWith("HB 0 "))).toBe("HB 0 0");
    await runner.close();
    const before = sent.length;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent.length).toBe(before);
  });
});

/**
 * A room server (one room) that has client 1 in the room as soon as its join arrives but holds back its "joined" for
 * 500 ms, and every move meant for it behind that answer (one ordered stream, as TCP's); all else goes at once.
 */
function slowJoinServer(): Transport {
  const members = new Map<number, (data: string) => void>();
  return {
    open(events) {
      let open = true;
      let client = -1;
      let held: string[] | undefined;
      const deliver = (data: string) => {
        if (!open) return;
        if (held) held.push(data);
        else events.onMessage(Buffer.from(data), performance.now());
      };
      queueMicrotask(() => open && events.onOpen());
      return {
        send(data) {
          if (!open) return false;
          const message = JSON.parse(String(data)) as { type: string; client: number };
          if (message.type === "join") {
            client = message.client;
            members.set(client, deliver);
            if (client !== 1) deliver('{"type":"joined"}');
            else {
              held = ['{"type":"joined"}'];
              setTimeout(() => {
                const waiting = held ?? [];
                held = undefined;
                for (const queued of waiting) deliver(queued);
              }, 500);
            }
          } else if (message.type === "move") {
            for (const [member, send] of members) if (member !== client) send(String(data));
          }
          return true;
        },
        close() {
          members.delete(client);
          if (open) queueMicrotask(() => events.onEnd({ opened: true }));
          open = false;
          return Promise.resolve();
        },
      };
    },
  };
}

describe("movement-sync's reach", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] }));
  afterEach(() => vi.useRealTimers());

  it("counts no broadcast its receiver was not expected to get: one sent before the receiver had joined (as the agent saw it) but delivered after", async () => {
    const { builder, runner } = roomsOfTwo(slowJoinServer());
    runner.startClient(0);
    runner.startClient(1);
    await vi.advanceTimersByTimeAsync(2_000);
    const { counters } = builder.take({ seq: 0, intervalStart: 0, intervalMs: 2_000, clients: 2 });
    // Client 0's ~10 updates of the first 500 ms reached client 1 too, but client 0 expected no one to get them.
    expect(counters.broadcastsExpected).toBeGreaterThan(50);
    expect(counters.broadcastsReceived).toBe(counters.broadcastsExpected);
    await runner.close();
  });
});
