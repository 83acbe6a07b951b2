import { describe, expect, it } from "vitest";
import type { RunAssignment } from "@throng/protocol/agent";
import { MetricSnapshot } from "@throng/protocol/snapshot";
import { runTag } from "@throng/protocol/run-tag";
import { createFakeTransport, createScriptedTransport, silenced } from "../testing/fake-transport";
import type { Transport } from "../transports/transport";
import { offsetClock } from "./clock";
import { runShard } from "./run-shard";

function assignment(
  overrides: { clients?: number; durationSec?: number; rampUpSec?: number; startAt?: number } = {},
): RunAssignment {
  const clients = overrides.clients ?? 5;
  return {
    runId: "2a0c8f3e-5b7d-4c1a-9e6f-8d2b4c6a1e3f",
    shardIndex: 0,
    shardCount: 1,
    clients,
    startAt: overrides.startAt ?? Date.now(),
    plan: {
      name: "engine unit",
      target: { protocol: "websocket", url: "ws://127.0.0.1:1/ws" },
      scenario: { kind: "ping-pong", intervalMs: 10, messageBytes: 64 },
      load: { clients, durationSec: overrides.durationSec ?? 1, rampUpSec: overrides.rampUpSec ?? 0 },
    },
  };
}

/** The test plan whose clients send `hello` and wait for a reply matching `welcome` before pinging every 100 ms. */
function sessionPlan(hello: string, welcome: string, planClients: number): RunAssignment["plan"] {
  return {
    ...assignment().plan,
    scenario: {
      kind: "ping-pong",
      intervalMs: 100,
      session: [
        { kind: "send", message: { body: hello } },
        { kind: "expect", reply: { regex: welcome } },
      ],
    },
    load: { clients: planClients, durationSec: 1, rampUpSec: 0 },
  };
}

describe("runShard", () => {
  it("stops by itself at startAt + durationSec, one schema-valid snapshot per second from seq 0", async () => {
    const { transport, counts } = createFakeTransport();
    const snapshots: MetricSnapshot[] = [];
    const result = await runShard(assignment({ durationSec: 2 }), { transport, onSnapshot: (s) => snapshots.push(s) });

    expect(result.lastSeq).toBe(1);
    expect(snapshots.map((s) => s.seq)).toEqual([0, 1]);
    expect(snapshots.map((s) => s.intervalMs)).toEqual([1_000, 1_000]);
    for (const snapshot of snapshots) expect(MetricSnapshot.safeParse(snapshot).success).toBe(true);
    expect(snapshots[0]!.counters.messagesReceived).toBeGreaterThan(0);
    expect(counts()).toEqual({ opened: 5, closed: 5 });
  });

  it("stamps intervals in server time: startAt + k seconds on the server clock", async () => {
    const { transport } = createFakeTransport();
    const clock = offsetClock(3_600_000); // the server is an hour ahead of this machine
    const startAt = Math.round(clock.now()) + 100;
    const snapshots: MetricSnapshot[] = [];
    await runShard(assignment({ startAt, durationSec: 1 }), { transport, clock, onSnapshot: (s) => snapshots.push(s) });
    expect(snapshots.map((s) => s.intervalStart)).toEqual([startAt]);
  });

  it("a shard started late numbers its snapshots by the second since startAt and still ends at the planned end", async () => {
    const { transport } = createFakeTransport();
    const startAt = Date.now() - 2_500;
    const snapshots: MetricSnapshot[] = [];
    const result = await runShard(assignment({ startAt, durationSec: 4 }), {
      transport,
      onSnapshot: (s) => snapshots.push(s),
    });
    expect(snapshots.map((s) => s.seq)).toEqual([2, 3]);
    expect(snapshots[1]!.intervalStart).toBe(startAt + 3_000);
    expect(snapshots[1]!.intervalStart + snapshots[1]!.intervalMs).toBe(startAt + 4_000);
    expect(result.lastSeq).toBe(3);
  });

  it("on abort flushes the partial interval as a final snapshot and closes every connection (PROTOCOL.md §7)", async () => {
    const { transport, counts } = createFakeTransport();
    const controller = new AbortController();
    const snapshots: MetricSnapshot[] = [];
    const result = await runShard(assignment({ durationSec: 60 }), {
      transport,
      signal: controller.signal,
      onSnapshot(snapshot) {
        snapshots.push(snapshot);
        if (snapshot.seq === 0) setTimeout(() => controller.abort(), 200);
      },
    });
    expect(result.lastSeq).toBe(1);
    expect(snapshots[1]!.intervalMs).toBeLessThan(1_000);
    expect(snapshots[1]!.intervalStart).toBe(snapshots[0]!.intervalStart + 1_000);
    expect(counts().closed).toBe(5);
  });

  it("ramps clients over rampUpSec", async () => {
    const { transport } = createFakeTransport();
    const snapshots: MetricSnapshot[] = [];
    await runShard(assignment({ clients: 10, durationSec: 3, rampUpSec: 2 }), {
      transport,
      onSnapshot: (s) => snapshots.push(s),
    });
    // Client i starts at i * 200 ms: six by the end of the first second, all ten by the end.
    expect(snapshots[0]!.clients).toBeGreaterThanOrEqual(5);
    expect(snapshots[0]!.clients).toBeLessThanOrEqual(6);
    expect(snapshots[2]!.clients).toBe(10);
  });

  it("generates no load when aborted before startAt or handed the shard after its planned end", async () => {
    const { transport, counts } = createFakeTransport();
    const controller = new AbortController();
    controller.abort();
    let started = false;
    const onStart = () => (started = true);
    const early = await runShard(assignment({ startAt: Date.now() + 60_000 }), {
      transport,
      signal: controller.signal,
      onStart,
      onSnapshot() {},
    });
    const late = await runShard(assignment({ startAt: Date.now() - 10_000, durationSec: 5 }), {
      transport,
      onStart,
      onSnapshot() {},
    });
    expect(early).toEqual({ lastSeq: -1, skipped: "aborted" });
    expect(late).toEqual({ lastSeq: -1, skipped: "expired" });
    expect(started).toBe(false);
    expect(counts().opened).toBe(0);
  });

  it("counts failed connections instead of throwing", async () => {
    const { transport } = createFakeTransport({ failing: true });
    const snapshots: MetricSnapshot[] = [];
    await runShard(assignment({ clients: 4 }), { transport, onSnapshot: (s) => snapshots.push(s) });
    expect(snapshots[0]!.counters).toMatchObject({ connectionsFailed: 4, connectionsOpened: 0, messagesSent: 0 });
  });

  it("fills scheduledSends from ping-pong's schedule: met in a normal run, far short once sends stop", async () => {
    const { transport } = createFakeTransport();
    let stopped = false;
    // The fake transport, except that from `stopped` on no send goes out.
    const stopping: Transport = {
      open(events) {
        const connection = transport.open(events);
        return { send: (data) => !stopped && connection.send(data), close: (timeoutMs) => connection.close(timeoutMs) };
      },
    };
    const snapshots: MetricSnapshot[] = [];
    await runShard(assignment({ durationSec: 3 }), {
      transport: stopping,
      onSnapshot(snapshot) {
        snapshots.push(snapshot);
        if (snapshot.seq === 1) stopped = true;
      },
    });
    // 5 clients at 100 pings a second each.
    const [first, second, third] = snapshots;
    const made = (s: MetricSnapshot) => s.counters.messagesSent + (s.counters.skippedSends ?? 0);
    expect(second!.counters.scheduledSends).toBeGreaterThan(450);
    expect(
      Math.abs(made(first!) + made(second!) - first!.counters.scheduledSends! - second!.counters.scheduledSends!),
    ).toBeLessThan(20);
    expect(third!.counters.scheduledSends).toBeGreaterThan(450);
    // Far short: a stalled timer on a busy host may still skip (and so account for) a few sends, never most of them.
    expect(made(third!)).toBeLessThan(third!.counters.scheduledSends! * 0.1);
  });

  it("counts pings still unanswered when the run ends as inFlightAtEnd in the last snapshot, not as errors", async () => {
    const { transport } = createFakeTransport();
    // The fake transport, except that no pong ever comes back.
    const silent: Transport = { open: (events) => transport.open(silenced(events)) };
    const snapshots: MetricSnapshot[] = [];
    await runShard(assignment({ durationSec: 2 }), { transport: silent, onSnapshot: (s) => snapshots.push(s) });
    expect(snapshots.map((s) => s.counters.inFlightAtEnd)).toEqual([undefined, 5]);
    expect(snapshots.map((s) => s.counters.errors)).toEqual([0, 0]);
    expect(MetricSnapshot.safeParse(snapshots[1]).success).toBe(true);
  });

  it("numbers its clients from the shard's clientsBefore ({{client}}) in sessions and pings, and writes the run's tag for {{run}}", async () => {
    const { transport, sent } = createScriptedTransport((message) =>
      message.startsWith("hello")
        ? ["welcome"]
        : [`{"type":"pong","seq":${(JSON.parse(message) as { seq: number }).seq}}`],
    );
    const shard: RunAssignment = {
      ...assignment({ clients: 4 }),
      clientsBefore: 40,
      plan: sessionPlan("hello {{client}} {{run}}", "^welcome$", 50),
    };
    await runShard(shard, { transport, onSnapshot() {} });
    const hellos = sent.filter((message) => message.startsWith("hello")).sort();
    expect(hellos).toEqual([40, 41, 42, 43].map((client) => `hello ${client} ${runTag(shard.runId)}`));
    const pingers = new Set(
      sent
        .filter((message) => message.startsWith("{"))
        .map((message) => (JSON.parse(message) as { client: number }).client),
    );
    expect([...pingers].sort()).toEqual([40, 41, 42, 43]);
  });

  it("writes the assignment's secrets into the plan's texts for {{secrets.NAME}} before anything is compiled (PROTOCOL.md §14)", async () => {
    const { transport, sent } = createScriptedTransport((message) =>
      message.startsWith("AUTH") ? ["+OK"] : [`{"type":"pong","seq":${(JSON.parse(message) as { seq: number }).seq}}`],
    );
    const shard: RunAssignment = {
      ...assignment({ clients: 2 }),
      secrets: { REDIS_PASSWORD: "hunter2" },
      plan: sessionPlan("AUTH {{secrets.REDIS_PASSWORD}}", "^\\+OK", 2),
    };
    await runShard(shard, { transport, onSnapshot() {} });
    expect(sent.filter((message) => message.startsWith("AUTH"))).toEqual(["AUTH hunter2", "AUTH hunter2"]);
    expect(sent.filter((message) => message.startsWith("{")).length).toBeGreaterThan(0);
  });

  it("refuses a shard whose plan names a secret the assignment lacks, naming it and where it is used, before any connection", async () => {
    const { transport, counts } = createFakeTransport();
    const shard: RunAssignment = {
      ...assignment(),
      plan: {
        ...assignment().plan,
        target: {
          protocol: "websocket",
          url: "ws://127.0.0.1:1/ws",
          headers: { Authorization: "Bearer {{secrets.TOKEN}}" },
        },
      },
    };
    await expect(runShard(shard, { transport, onSnapshot() {} })).rejects.toThrow(
      /\{\{secrets\.TOKEN\}\} \(target\.headers\.Authorization\), which has no value here.*No load was generated/,
    );
    expect(counts()).toEqual({ opened: 0, closed: 0 });
  });
});
