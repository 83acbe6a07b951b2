import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PingPongScenario } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { decodeHistogram } from "../metrics/histogram";
import { createSnapshotBuilder } from "../metrics/snapshot-builder";
import { silenced } from "../testing/fake-transport";
import type { Transport } from "../transports/transport";
import { createPingPong } from "./ping-pong";

const runId = "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e";

/** A seeded generator for the clients' first-ping offsets, so every run of a test is the same run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
}

/** Answers every ping at once (a microtask later, at the same time), and can refuse sends from some moment on. */
function instantTransport(refuse: () => boolean = () => false): Transport {
  return {
    open(events) {
      let open = true;
      queueMicrotask(() => open && events.onOpen());
      return {
        send(data) {
          if (!open || refuse()) return false;
          const { seq } = JSON.parse(String(data)) as { seq: number };
          queueMicrotask(
            () => open && events.onMessage(Buffer.from(`{"type":"pong","seq":${seq}}`), performance.now()),
          );
          return true;
        },
        close() {
          if (open) queueMicrotask(() => events.onEnd({ opened: true }));
          open = false;
          return Promise.resolve();
        },
      };
    },
  };
}

/** Ping-pong on fake timers: `clients` clients started now, run for `ms` in 10 ms steps, `during` called each step. */
async function runPingPong(options: {
  scenario?: Partial<PingPongScenario>;
  clients?: number;
  ms: number;
  transport?: Transport;
  during?: (elapsedMs: number) => void;
}) {
  const builder = createSnapshotBuilder({
    runId,
    health: { sample: () => ({ cpuPercent: 0, eventLoopP99Ms: 0, rssBytes: 0 }), stop() {} },
  });
  const clients = options.clients ?? 20;
  const scenario: PingPongScenario = { kind: "ping-pong", intervalMs: 100, messageBytes: 64, ...options.scenario };
  const runner = createPingPong(scenario, {
    transport: options.transport ?? instantTransport(),
    metrics: builder.metrics,
    clients,
    random: seeded(7),
  });
  for (let i = 0; i < clients; i += 1) runner.startClient(i);
  const snapshots: MetricSnapshot[] = [];
  for (let elapsed = 0; elapsed < options.ms; elapsed += 10) {
    options.during?.(elapsed);
    await vi.advanceTimersByTimeAsync(10);
    if ((elapsed + 10) % 1_000 === 0)
      snapshots.push(builder.take({ seq: snapshots.length, intervalStart: elapsed - 990, intervalMs: 1_000, clients }));
  }
  return { builder, runner, snapshots };
}

describe("ping-pong on fake timers", () => {
  /** Added to the fake performance.now(): the loop "stalls" when it jumps without the timers firing in between. */
  let stalledMs = 0;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance"] });
    // Timers wake at a fraction of a millisecond past the clock's whole ms, as Node's do (at any fraction).
    vi.advanceTimersByTime(12_345.678);
    const fakeNow = performance.now.bind(performance);
    stalledMs = 0;
    vi.spyOn(performance, "now").mockImplementation(() => fakeNow() + stalledMs);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it("with no stall the corrected latency agrees with the raw latency (a send within the timer's resolution is on time)", async () => {
    const { snapshots } = await runPingPong({ ms: 3_000 });
    const raw = decodeHistogram(snapshots[2]!.histograms.rttUs);
    const corrected = decodeHistogram(snapshots[2]!.histograms.rttCorrectedUs!);
    expect(raw.totalCount).toBe(200);
    expect(corrected.totalCount).toBe(200);
    expect(corrected.getValueAtPercentile(50) - raw.getValueAtPercentile(50)).toBeLessThan(100);
    expect(corrected.maxValue - raw.maxValue).toBeLessThan(100);
    expect(snapshots[2]!.counters.lateSends ?? 0).toBe(0);
  });

  it("a 50 ms stall of the loop still shows in the corrected latency, and as late sends", async () => {
    const { snapshots } = await runPingPong({
      ms: 2_000,
      during: (elapsed) => {
        if (elapsed === 1_500) stalledMs += 50;
      },
    });
    const raw = decodeHistogram(snapshots[1]!.histograms.rttUs);
    const corrected = decodeHistogram(snapshots[1]!.histograms.rttCorrectedUs!);
    // The pings due in the 50 ms (about half of one interval's) went out up to 50 ms late.
    expect(corrected.getValueAtPercentile(99) - raw.getValueAtPercentile(99)).toBeGreaterThan(30_000);
    expect(snapshots[1]!.counters.lateSends).toBeGreaterThan(3);
  });

  it("counts the sends its schedule calls for: a normal run makes them all (sent + skipped), a run whose sends stop falls short", async () => {
    const sentOrSkipped = (s: MetricSnapshot) => s.counters.messagesSent + (s.counters.skippedSends ?? 0);
    const normal = await runPingPong({ ms: 3_000 });
    // 20 clients at 10 pings a second; the first second holds each client's first, randomly placed ping.
    for (const snapshot of normal.snapshots.slice(1)) {
      expect(snapshot.counters.scheduledSends).toBe(200);
      expect(Math.abs(sentOrSkipped(snapshot) - 200)).toBeLessThanOrEqual(4);
    }
    let stopped = false;
    const { snapshots } = await runPingPong({
      ms: 3_000,
      transport: instantTransport(() => stopped),
      during: (elapsed) => (stopped = elapsed >= 1_000),
    });
    expect(snapshots[2]!.counters.scheduledSends).toBe(200);
    expect(sentOrSkipped(snapshots[2]!)).toBe(0);
  });

  it("a loop stalled for seconds still owes its schedule: what it skipped is counted, and nothing is scheduled twice", async () => {
    const { snapshots } = await runPingPong({
      ms: 3_000,
      during: (elapsed) => {
        if (elapsed === 1_200) stalledMs += 2_000;
      },
    });
    const scheduled = snapshots.reduce((sum, s) => sum + (s.counters.scheduledSends ?? 0), 0);
    const made = snapshots.reduce((sum, s) => sum + s.counters.messagesSent + (s.counters.skippedSends ?? 0), 0);
    expect(snapshots[1]!.counters.scheduledSends).toBeGreaterThan(550);
    expect(Math.abs(made - scheduled) / scheduled).toBeLessThan(0.03);
  });

  it("a closed model (think time) has no send schedule to count", async () => {
    const { snapshots } = await runPingPong({ ms: 1_000, scenario: { thinkTime: { minMs: 10, maxMs: 20 } } });
    expect(snapshots[0]!.counters.messagesSent).toBeGreaterThan(0);
    expect(snapshots[0]!.counters.scheduledSends).toBeUndefined();
  });

  it("at the run's end a ping still unanswered is in flight, not an error; one already past its timeout is a timeout", async () => {
    // Never answers; pings time out after 300 ms, which ping-pong notices at the client's next due time.
    const silent: Transport = { open: (events) => instantTransport().open(silenced(events)) };
    const { builder, runner, snapshots } = await runPingPong({
      ms: 1_500,
      clients: 20,
      transport: silent,
      scenario: { intervalMs: 1_000, timeoutMs: 300 },
    });
    await runner.close();
    const last = builder.take({ seq: 1, intervalStart: 1_000, intervalMs: 500, clients: 20 });
    const all = [...snapshots, last];
    const sum = (name: "messagesSent" | "errors" | "inFlightAtEnd") =>
      all.reduce((n, s) => n + (s.counters[name] ?? 0), 0);
    // Every ping sent is accounted once: timed out (during the run or at its end) or in flight at the end.
    expect(sum("errors") + sum("inFlightAtEnd")).toBe(sum("messagesSent"));
    expect(last.counters.inFlightAtEnd).toBeGreaterThan(0);
    expect(last.counters.inFlightAtEnd).toBeLessThan(20);
    expect(Object.keys(last.counters.errorsByKind ?? {})).toEqual(["timeout"]);
    expect(last.counters.lost).toBeUndefined();
  });
});
