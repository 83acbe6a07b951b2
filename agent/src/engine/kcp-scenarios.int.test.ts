import type { KcpTarget, PlanSpec, TcpFraming } from "@throng/protocol/plan";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { kcpTestServerBinary, startKcpGoServer, type KcpGoServer } from "../testing/kcp-go";
import { merged, runPlan, total, totalsByKind } from "../testing/assignment";

// Every scenario over KCP, against xtaci/kcp-go servers (agent/test-servers/kcp): the echo server, and the room
// server that speaks the reference target's JSON (join/joined, move relayed to the room, login/login-ok).

let server: KcpGoServer | undefined;
beforeAll(async () => void (await kcpTestServerBinary()), 10 * 60_000);
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const newline: TcpFraming = { kind: "delimiter", delimiter: "\n" };
const kcp = (port: number, stream = false): KcpTarget =>
  stream
    ? { protocol: "kcp", host: "127.0.0.1", port, stream: true, framing: newline }
    : { protocol: "kcp", host: "127.0.0.1", port };
const bySeq = { by: "json-field", field: "seq" } as const;

/** Starts kcp-go's `kind` server (in stream mode with `stream`; closed after the test) and runs `plan` against it. */
async function runAgainstKcpGo(
  { kind, stream = false }: { kind: "echo" | "room"; stream?: boolean },
  plan: Omit<PlanSpec, "name" | "target">,
) {
  server = await startKcpGoServer(kind, { stream });
  return runPlan({ target: kcp(server.port, stream), ...plan });
}
/** KCP's two modes, each scenario run in both: whole messages, and a byte stream cut by newlines. */
const KCP_MODES: Array<[mode: string, stream: boolean]> = [
  ["message", false],
  ["stream (newline-delimited)", true],
];

describe("scenarios over KCP against kcp-go", () => {
  it.each(KCP_MODES)(
    "ping-pong, %s mode: every ping answered and timed, KCP's counters in every second",
    async (_, stream) => {
      const snapshots = await runAgainstKcpGo(
        { kind: "echo", stream },
        {
          scenario: { kind: "ping-pong", intervalMs: 50, messageBytes: 64, match: bySeq },
          load: { clients: 10, durationSec: 2, rampUpSec: 0 },
        },
      );
      const rtt = merged(snapshots, "rttUs")!;
      expect(rtt.totalCount).toBeGreaterThan(10 * 2 * 20 * 0.6);
      expect(total(snapshots, "errors")).toBe(0);
      expect(snapshots.every((s) => s.counters.kcpWireBytesSent !== undefined)).toBe(true);
      // Each ping and pong once as payload (a newline more each in stream mode); the wire adds KCP's headers and ACKs.
      const pings = total(snapshots, "messagesSent");
      expect(total(snapshots, "kcpPayloadBytesSent")).toBe(pings * (stream ? 65 : 64));
      expect(total(snapshots, "kcpWireBytesSent")).toBeGreaterThan(total(snapshots, "kcpPayloadBytesSent"));
      expect(total(snapshots, "kcpDatagramsSent")).toBeGreaterThanOrEqual(pings);
    },
  );

  it("echo-flood: four in flight per connection, every echo answered", async () => {
    const snapshots = await runAgainstKcpGo(
      { kind: "echo" },
      {
        scenario: { kind: "echo-flood", messageBytes: 16, maxInFlight: 4 },
        load: { clients: 5, durationSec: 1, rampUpSec: 0 },
      },
    );
    const received = total(snapshots, "messagesReceived");
    expect(received).toBeGreaterThan(100);
    expect(total(snapshots, "bytesReceived")).toBe(received * 16);
    expect(total(snapshots, "messagesSent") - received).toBeLessThanOrEqual(5 * 4);
    expect(total(snapshots, "errors")).toBe(0);
  });

  it.each(KCP_MODES)(
    "movement-sync, %s mode: rooms of 4 at 20 Hz reach every other member, in order, none lost",
    async (_, stream) => {
      const snapshots = await runAgainstKcpGo(
        { kind: "room", stream },
        {
          scenario: { kind: "movement-sync", roomSize: 4, updateHz: 20 },
          load: { clients: 8, durationSec: 2, rampUpSec: 0 },
        },
      );
      const expected = total(snapshots, "broadcastsExpected");
      const received = total(snapshots, "broadcastsReceived");
      expect(expected).toBeGreaterThan(8 * 20 * 3 * 0.6);
      expect(received / expected).toBeGreaterThan(0.95);
      expect(merged(snapshots, "broadcastUs")!.totalCount).toBe(received);
      expect(total(snapshots, "lost") + total(snapshots, "duplicates") + total(snapshots, "outOfOrder")).toBe(0);
    },
  );

  it("login-storm: every client logs in (login / login-ok) and its login is timed", async () => {
    const snapshots = await runAgainstKcpGo(
      { kind: "room" },
      {
        scenario: { kind: "login-storm", connectsPerSec: 50, login: true },
        load: { clients: 20, durationSec: 2, rampUpSec: 0 },
      },
    );
    expect(total(snapshots, "loginsSucceeded")).toBe(20);
    expect(merged(snapshots, "loginUs")!.totalCount).toBe(20);
    expect(total(snapshots, "connectionsFailed")).toBe(0);
  });

  it("session steps, a respond rule, templates with captured variables, and MessagePack bodies", async () => {
    // The echo server plays the server's keep-alive: the session's "KEEPALIVE?" comes back and only the respond
    // rule answers it; that answer's echo is what the session waits for, and its client number is captured.
    const snapshots = await runAgainstKcpGo(
      { kind: "echo" },
      {
        scenario: {
          kind: "ping-pong",
          intervalMs: 50,
          session: [
            { kind: "send", message: { body: "KEEPALIVE?" } },
            {
              kind: "expect",
              reply: { json: { field: "type", equals: "keepalive" } },
              capture: [{ name: "who", from: { json: "client" } }],
            },
          ],
          respond: [
            {
              when: { regex: "^KEEPALIVE\\?" },
              send: { format: "msgpack", body: '{"type":"keepalive","client":{{client}}}' },
            },
          ],
          message: { format: "msgpack", body: '{"type":"ping","seq":{{seq}},"who":"{{vars.who}}"}' },
          match: bySeq,
        },
        load: { clients: 4, durationSec: 2, rampUpSec: 0 },
      },
    );
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({});
    expect(merged(snapshots, "rttUs")!.totalCount).toBeGreaterThan(4 * 20);
    expect(total(snapshots, "loginsFailed")).toBe(0);
  });
});
