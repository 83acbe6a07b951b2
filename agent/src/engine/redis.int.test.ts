import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { connect, createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PingPongScenario, SessionStep } from "@throng/protocol/plan";
import { merged, runPlan, total, totalsByKind } from "../testing/assignment";

// A real third-party server speaking its own protocol: Debian's redis-server, driven by a plan alone (docs/protocols.md).

const hex = (text: string) => Buffer.from(text).toString("hex");
let redis: ChildProcess | undefined;
let port = 0;

function redisServerPath(): string {
  try {
    return execFileSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error("redis-server is not installed on this machine: install Debian's redis-server (apt-get install redis-server) to run this test");
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port: free } = server.address() as { port: number };
      server.close(() => resolve(free));
    });
    server.on("error", reject);
  });
}

/** Redis's own count of the commands it ran, read over a raw socket (its AUTH and INFO count too: 2 per reading). */
function commandsProcessed(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write("AUTH secret\r\nINFO stats\r\n"));
    let text = "";
    socket.on("data", (data) => {
      text += data.toString();
      const found = /total_commands_processed:(\d+)\r\n/.exec(text);
      if (found) {
        socket.destroy();
        resolve(Number(found[1]));
      }
    });
    socket.on("error", reject);
  });
}

// The delimiter framing ends every message with "\r\n" itself, so the templates leave it out.
const auth = (password: string): SessionStep[] => [
  { kind: "send", message: { body: `AUTH ${password}` } },
  { kind: "expect", reply: { prefixHex: hex("+OK") }, failWhen: { regex: "^-" } },
];

function plan(scenario: PingPongScenario, clients: number, durationSec: number) {
  return {
    target: { protocol: "tcp" as const, host: "127.0.0.1", port, framing: { kind: "delimiter" as const, delimiter: "\r\n" } },
    scenario,
    load: { clients, durationSec, rampUpSec: 0 },
  };
}

beforeAll(async () => {
  const path = redisServerPath();
  port = await freePort();
  const child = spawn(path, ["--port", String(port), "--bind", "127.0.0.1", "--requirepass", "secret", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "pipe"] });
  redis = child;
  await new Promise<void>((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (data: Buffer) => {
      output += data.toString();
      if (output.includes("Ready to accept connections")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`redis-server exited (${code}) before it was ready: ${output}`)));
  });
});

afterAll(() => {
  redis?.kill();
});

describe("ping-pong against a real Redis, speaking its protocol from the plan", () => {
  it("authenticates each client with a session, then PINGs: no errors, round trips, and every message the agent counted as sent is a command Redis ran", async () => {
    const before = await commandsProcessed();
    const snapshots = await runPlan(
      plan({ kind: "ping-pong", intervalMs: 100, message: { body: "PING" }, match: { by: "order" }, reply: { expect: { prefixHex: hex("+PONG") } }, session: auth("secret") }, 20, 3),
    );
    const ran = (await commandsProcessed()) - before - 2; // less the first reading's INFO and the second's AUTH
    const sent = total(snapshots, "messagesSent");
    expect(total(snapshots, "errors") + total(snapshots, "connectionsFailed")).toBe(0);
    expect(merged(snapshots, "rttUs")!.totalCount).toBeGreaterThan(20 * 10);
    expect(sent).toBeGreaterThan(20 * 10);
    expect(Math.abs(sent - ran) / ran).toBeLessThanOrEqual(0.01);
  });

  it("with the wrong password every client fails its session as session-rejected, and sends no PING", async () => {
    const snapshots = await runPlan(plan({ kind: "ping-pong", intervalMs: 100, message: { body: "PING" }, match: { by: "order" }, session: auth("wrong") }, 5, 1));
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({ "session-rejected": 5 });
    expect(total(snapshots, "messagesSent")).toBe(5); // the AUTHs only
    expect(merged(snapshots, "rttUs")!.totalCount).toBe(0);
    expect(totalsByKind(snapshots, "closesByCause")).toEqual({ agent: 5 });
  });

  it("checks replies: INCR's integer reply is not the +PONG the plan expects, so each is a bad-reply error, not a round trip", async () => {
    const snapshots = await runPlan(
      plan({ kind: "ping-pong", intervalMs: 100, message: { body: "INCR k" }, match: { by: "order" }, reply: { expect: { prefixHex: hex("+PONG") } }, session: auth("secret") }, 5, 1),
    );
    const replies = total(snapshots, "messagesReceived") - 5; // less each client's +OK
    expect(replies).toBeGreaterThan(5 * 5);
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({ "bad-reply": replies });
    expect(merged(snapshots, "rttUs")!.totalCount).toBe(0);
  });
});
