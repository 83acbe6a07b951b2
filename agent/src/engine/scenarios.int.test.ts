import { describe, expect, it } from "vitest";
import type { PlanSpec, TcpFraming } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { TargetOptions } from "../target/target-server";
import { useReferenceTarget } from "../testing/reference-target.test-support";
import { merged, runPlan, total, totalsByKind } from "../testing/assignment";

const startTestTarget = useReferenceTarget();

const len2: TcpFraming = { kind: "length-prefix", headerBytes: 2 };

/** Runs `scenario` over WebSocket against a fresh reference target (`options` besides port 0), no ramp-up. */
async function runOnTarget(
  scenario: PlanSpec["scenario"],
  load: { clients: number; durationSec: number },
  options: Omit<TargetOptions, "port"> = {},
): Promise<MetricSnapshot[]> {
  const target = await startTestTarget({ port: 0, ...options });
  return runPlan({ target: { protocol: "websocket", url: target.url }, scenario, load: { ...load, rampUpSec: 0 } });
}

describe("scenarios against the reference target", () => {
  it.each(["websocket", "tcp"] as const)(
    "echo-flood over %s: every echo answered, one round trip per echo, no errors",
    async (protocol) => {
      const target = await startTestTarget({ port: 0, tcp: { port: 0, framing: len2 } });
      const snapshots = await runPlan({
        target:
          protocol === "tcp"
            ? { protocol, host: "127.0.0.1", port: target.tcpPort!, framing: len2 }
            : { protocol, url: target.url, frames: "binary" },
        scenario: { kind: "echo-flood", messageBytes: 8, maxInFlight: 1 },
        load: { clients: 10, durationSec: 1, rampUpSec: 0 },
      });
      const received = total(snapshots, "messagesReceived");
      expect(received).toBeGreaterThan(50); // correctness, not speed: the machine may be shared
      expect(total(snapshots, "bytesReceived")).toBe(received * 8);
      expect(merged(snapshots, "rttUs")!.totalCount).toBe(received);
      expect(total(snapshots, "messagesSent") - received).toBeLessThanOrEqual(10); // at most one in flight each at the end
      expect(total(snapshots, "errors")).toBe(0);
    },
  );

  it("movement-sync: rooms of 4 at 20 Hz reach every other member, with broadcast latency and no loss", async () => {
    const snapshots = await runOnTarget(
      { kind: "movement-sync", roomSize: 4, updateHz: 20 },
      { clients: 8, durationSec: 2 },
    );
    const expected = total(snapshots, "broadcastsExpected");
    const received = total(snapshots, "broadcastsReceived");
    expect(expected).toBeGreaterThan(8 * 20 * 3 * 0.7); // ~2 s of 8 players × 3 others at 20 Hz, less the join
    expect(received / expected).toBeGreaterThan(0.95);
    expect(merged(snapshots, "broadcastUs")!.totalCount).toBe(received);
    expect(merged(snapshots, "jitterUs")!.totalCount).toBeGreaterThan(0);
    expect(total(snapshots, "lost") + total(snapshots, "duplicates") + total(snapshots, "outOfOrder")).toBe(0);
  });

  it("movement-sync as fast as possible sends the next update once the room got the last", async () => {
    const snapshots = await runOnTarget({ kind: "movement-sync", roomSize: 3 }, { clients: 3, durationSec: 1 });
    expect(total(snapshots, "broadcastsReceived")).toBeGreaterThan(30);
    expect(total(snapshots, "broadcastsReceived") / total(snapshots, "broadcastsExpected")).toBeGreaterThan(0.95);
  });

  it("login-storm: connect and login histograms, and failures by cause when the target refuses past its limit", async () => {
    const snapshots = await runOnTarget(
      { kind: "login-storm", login: true },
      { clients: 40, durationSec: 1 },
      { maxClients: 30 },
    );
    expect(total(snapshots, "loginsSucceeded")).toBe(30);
    expect(merged(snapshots, "connectUs")!.totalCount).toBe(30);
    expect(merged(snapshots, "loginUs")!.totalCount).toBe(30);
    expect(total(snapshots, "connectionsFailed")).toBe(10);
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({ handshake: 10 });
  });

  it("sessions: movement-sync joins its room by session steps ({{room}}), login-storm logs in by them and times the session", async () => {
    const target = await startTestTarget({ port: 0 });
    const join = [
      {
        kind: "send" as const,
        message: { format: "json" as const, body: '{"type":"join","room":{{room}},"client":{{client}}}' },
      },
      { kind: "expect" as const, reply: { json: { field: "type", equals: "joined" } } },
    ];
    const moves = await runPlan({
      target: { protocol: "websocket", url: target.url },
      scenario: { kind: "movement-sync", roomSize: 3, updateHz: 20, session: join },
      load: { clients: 6, durationSec: 1, rampUpSec: 0 },
    });
    expect(total(moves, "broadcastsReceived")).toBeGreaterThan(6 * 2 * 10);
    expect(total(moves, "errors")).toBe(0);
    const login = [
      {
        kind: "send" as const,
        message: { format: "json" as const, body: '{"type":"login","client":{{client}},"seq":7}' },
      },
      {
        kind: "expect" as const,
        reply: { json: { field: "type", equals: "login-ok" } },
        capture: [{ name: "seq", from: { json: "seq" } }],
      },
      {
        kind: "send" as const,
        message: { format: "json" as const, body: '{"type":"login","client":{{client}},"seq":{{vars.seq}}}' },
      },
      { kind: "expect" as const, reply: { regex: '"seq":7\\b' } },
    ];
    const logins = await runPlan({
      target: { protocol: "websocket", url: target.url },
      scenario: { kind: "login-storm", session: login },
      load: { clients: 10, durationSec: 1, rampUpSec: 0 },
    });
    expect(total(logins, "loginsSucceeded")).toBe(10);
    expect(merged(logins, "loginUs")!.totalCount).toBe(10);
    expect(total(logins, "messagesSent")).toBe(20);
    expect(total(logins, "errors")).toBe(0);
  });

  it("login-storm at a connect rate follows it (open model): 20 per second for 2 s", async () => {
    const snapshots = await runOnTarget(
      { kind: "login-storm", connectsPerSec: 20 },
      { clients: 1_000, durationSec: 2 },
    );
    expect(snapshots[0]!.counters.connectionsOpened).toBeGreaterThanOrEqual(19);
    expect(snapshots[0]!.counters.connectionsOpened).toBeLessThanOrEqual(22);
    expect(total(snapshots, "connectionsOpened")).toBeLessThanOrEqual(42);
  });

  it("ping-pong over UDP with a custom template matched by regex, and over TCP with a newline delimiter", async () => {
    const target = await startTestTarget({
      port: 0,
      udp: { port: 0 },
      tcp: { port: 0, framing: { kind: "delimiter" } },
    });
    const scenario = {
      kind: "ping-pong" as const,
      intervalMs: 20,
      messageBytes: 64,
      message: {
        format: "json" as const,
        body: '{"type":"ping","seq":{{seq}},"client":{{client}},"at":{{sentAtUs}}}',
        sizeBytes: 100,
      },
      match: { by: "regex" as const, pattern: '"seq":(\\d+)' },
    };
    const udp = await runPlan({
      target: { protocol: "udp", host: "127.0.0.1", port: target.udpPort! },
      scenario,
      load: { clients: 5, durationSec: 1, rampUpSec: 0 },
    });
    const tcp = await runPlan({
      target: { protocol: "tcp", host: "127.0.0.1", port: target.tcpPort!, framing: { kind: "delimiter" } },
      scenario,
      load: { clients: 5, durationSec: 1, rampUpSec: 0 },
    });
    for (const snapshots of [udp, tcp]) {
      expect(merged(snapshots, "rttUs")!.totalCount).toBeGreaterThan(100);
      expect(total(snapshots, "bytesSent")).toBe(total(snapshots, "messagesSent") * 100);
      expect(total(snapshots, "errors")).toBe(0);
    }
  });
});
