import { MovementSyncScenario } from "@throng/protocol/plan";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { decodeHistogram } from "../metrics/histogram";
import { createSnapshotBuilder } from "../metrics/snapshot-builder";
import type { Transport, TransportEvents } from "../transports/transport";
import { createMovementSync } from "./movement-sync";
import { RoomSendTimes, sendTimeDepth } from "./send-times";

const runId = "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e";
const RELAY_DELAY_MS = 5;

/**
 * A room server in a text protocol of its own: "J <room>" joins, "M <client> <seq>" is relayed to the rest of the
 * room RELAY_DELAY_MS later as "B <client> <seq+seqShift>" (no send time), "L <client>" leaves. It logs what it got.
 */
function relayServer(seqShift = 0) {
  const log: string[] = [];
  const rooms = new Map<string, Set<TransportEvents>>();
  const transport: Transport = {
    open(events) {
      let open = true;
      let room: Set<TransportEvents> | undefined;
      queueMicrotask(() => open && events.onOpen());
      return {
        send(data) {
          if (!open) return false;
          const text = String(data);
          log.push(text);
          const [kind, a, b] = text.split(" ");
          if (kind === "J") {
            room = rooms.get(a!) ?? new Set();
            rooms.set(a!, room);
            room.add(events);
          }
          if (kind === "M") {
            for (const member of room ?? []) {
              if (member !== events)
                setTimeout(
                  () => member.onMessage(Buffer.from(`B ${a} ${Number(b) + seqShift}`), performance.now()),
                  RELAY_DELAY_MS,
                );
            }
          }
          return true;
        },
        close() {
          if (open) {
            log.push("close");
            room?.delete(events);
            queueMicrotask(() => events.onEnd({ opened: true }));
          }
          open = false;
          return Promise.resolve();
        },
      };
    },
  };
  return { transport, log };
}

const scenario = (extra: Partial<MovementSyncScenario> = {}) =>
  MovementSyncScenario.parse({
    kind: "movement-sync",
    roomSize: 3,
    updateHz: 10,
    session: [{ kind: "send", message: { body: "J {{room}}" } }],
    update: { body: "M {{client}} {{seq}}" },
    broadcast: { filter: { regex: "^B " }, sender: { regex: "^B (\\d+)" }, seq: { regex: "^B \\d+ (\\d+)" } },
    ...extra,
  });

const builder = () =>
  createSnapshotBuilder({
    runId,
    health: { sample: () => ({ cpuPercent: 0, eventLoopP99Ms: 0, rssBytes: 0 }), stop() {} },
  });

/** The scenario (with `extra`) over a fresh relay server (`seqShift` as relayServer takes it), counted afresh. */
function relayedRooms(extra: Partial<MovementSyncScenario> = {}, seqShift = 0) {
  const metrics = builder();
  const server = relayServer(seqShift);
  const runner = createMovementSync(scenario(extra), { transport: server.transport, metrics: metrics.metrics });
  return { metrics, server, runner };
}

describe("movement-sync through a server of its own protocol (update template, broadcast rule, leave steps)", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "performance"] }));
  afterEach(() => vi.useRealTimers());

  it("times broadcasts that carry no send time from the room's own record of (sender, seq)", async () => {
    const { metrics, runner } = relayedRooms();
    for (let i = 0; i < 6; i += 1) runner.startClient(i);
    await vi.advanceTimersByTimeAsync(2_000);
    await runner.close();
    const snapshot = metrics.take({ seq: 0, intervalStart: 0, intervalMs: 2_000, clients: 6 });
    const { broadcastsExpected, broadcastsReceived } = snapshot.counters;
    expect(broadcastsExpected).toBeGreaterThan(6 * 2 * 10);
    // Those sent within the relay's delay of the end are still on their way.
    expect(broadcastsReceived! / broadcastsExpected!).toBeGreaterThan(0.95);
    const latency = decodeHistogram(snapshot.histograms.broadcastUs!);
    expect(latency.totalCount).toBe(broadcastsReceived);
    // From the send the agent recorded: the relay's delay on the fake clock, not the arrival time.
    expect(latency.minNonZeroValue).toBeGreaterThanOrEqual(RELAY_DELAY_MS * 1000 - 1);
    expect(latency.maxValue).toBeLessThanOrEqual(RELAY_DELAY_MS * 1000 + 1_000);
    expect(snapshot.counters.errors).toBe(0);
    expect(snapshot.counters.lost ?? 0).toBe(0);
  });

  it("a broadcast of an update the room never sent is an unknown-broadcast error, not timed", async () => {
    const { metrics, runner } = relayedRooms({ roomSize: 2 }, 1_000);
    for (let i = 0; i < 2; i += 1) runner.startClient(i);
    await vi.advanceTimersByTimeAsync(1_000);
    await runner.close();
    const snapshot = metrics.take({ seq: 0, intervalStart: 0, intervalMs: 1_000, clients: 2 });
    expect(snapshot.counters.errorsByKind?.["unknown-broadcast"]).toBeGreaterThan(10);
    expect(snapshot.counters.broadcastsReceived ?? 0).toBe(0);
  });

  it("sends the leave steps as a client stops, before its connection closes, waits included", async () => {
    const leave = [
      { kind: "send", message: { body: "L {{client}}" } },
      { kind: "wait", ms: 50 },
      { kind: "send", message: { body: "L2 {{client}}" } },
    ];
    const { server, runner } = relayedRooms({ roomSize: 2, leave } as Partial<MovementSyncScenario>);
    runner.startClient(0);
    runner.startClient(1);
    await vi.advanceTimersByTimeAsync(500);
    // A ramp-down stops client 1 alone.
    const notUpdates = () => server.log.filter((line) => !line.startsWith("M "));
    runner.stopClient!(1);
    expect(notUpdates().slice(-1)).toEqual(["L 1"]);
    await vi.advanceTimersByTimeAsync(100);
    expect(notUpdates().slice(-3)).toEqual(["L 1", "L2 1", "close"]);
    // The run's end: close() resolves once the wait is over, and no update goes after the leave began.
    const closed = runner.close();
    await vi.advanceTimersByTimeAsync(100);
    await closed;
    expect(server.log.slice(-3)).toEqual(["L 0", "L2 0", "close"]);
  });
});

describe("a player started again", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "performance"] }));
  afterEach(() => vi.useRealTimers());

  it("goes on from its last seq, so the room sees no update out of order and the ring no seq twice", async () => {
    const { metrics, server, runner } = relayedRooms({ roomSize: 2 });
    runner.startClient(0);
    runner.startClient(1);
    await vi.advanceTimersByTimeAsync(500);
    runner.stopClient!(1);
    await vi.advanceTimersByTimeAsync(100);
    runner.startClient(1);
    await vi.advanceTimersByTimeAsync(500);
    await runner.close();
    const seqs = server.log.filter((line) => line.startsWith("M 1 ")).map((line) => Number(line.split(" ")[2]));
    expect(seqs.length).toBeGreaterThan(6);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    const counters = metrics.take({ seq: 0, intervalStart: 0, intervalMs: 1_100, clients: 2 }).counters;
    expect(counters.outOfOrder ?? 0).toBe(0);
    expect(counters.errors).toBe(0);
  });
});

describe("movement-sync's leave schema", () => {
  it("refuses an expect step in leave, naming it, and waits past 5 s in all", () => {
    const base = { kind: "movement-sync", roomSize: 2 };
    const expectStep = MovementSyncScenario.safeParse({
      ...base,
      leave: [{ kind: "expect", reply: { regex: "bye" } }],
    });
    expect(expectStep.error?.issues[0]).toMatchObject({
      path: ["leave", 0, "kind"],
      message: expect.stringContaining("send and wait only, not expect"),
    });
    const long = MovementSyncScenario.safeParse({
      ...base,
      leave: [
        { kind: "wait", ms: 3_000 },
        { kind: "wait", ms: 3_000 },
      ],
    });
    expect(long.error?.issues[0]?.message).toContain("at most 5000 ms");
    expect(MovementSyncScenario.safeParse({ ...base, update: { body: "M {{seq}}" } }).success).toBe(true);
  });
});

describe("a room's ring of send times", () => {
  it("holds each player's recent updates by (sender, seq) and forgets them once the ring wraps", () => {
    const times = new RoomSendTimes(6, 3, 16);
    times.record(7, 5, 1_000);
    times.record(8, 5, 2_000);
    expect(times.sentAt(7, 5)).toBe(1_000);
    expect(times.sentAt(8, 5)).toBe(2_000);
    expect(times.sentAt(7, 6)).toBeUndefined();
    // Another room's player, and a sender that is no client index.
    expect(times.sentAt(5, 5)).toBeUndefined();
    expect(times.sentAt(7.5, 5)).toBeUndefined();
    times.record(7, 5 + 16, 3_000);
    expect(times.sentAt(7, 5)).toBeUndefined();
    expect(times.sentAt(7, 21)).toBe(3_000);
  });

  it("keeps about 2 s of updates per player, 16 to 256 of them", () => {
    expect(sendTimeDepth(undefined)).toBe(16);
    expect(sendTimeDepth(10)).toBe(32);
    expect(sendTimeDepth(60)).toBe(128);
    expect(sendTimeDepth(1_000)).toBe(256);
  });
});
