import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import type { PlanSpecInput } from "@throng/protocol/plan";
import { ExitCode } from "./exit-codes";

/**
 * `throng-agent run` against a plain WebSocket echo server (the `ws` library's, on a real socket): the server sends
 * every ping back as it came, `{"type":"ping",…}`, which the default matching never takes for a pong. Issue 27 §0:
 * such a run printed "schedule 20 of 18 scheduled sends made or skipped" and "verdict: PASSED".
 */
const agentDir = fileURLToPath(new URL("../../", import.meta.url));
const repoRoot = join(agentDir, "..");
let echoUrl = "";
let server: WebSocketServer;
let dir: string;

beforeAll(async () => {
  server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  server.on("connection", (socket) =>
    socket.on("message", (data, isBinary) => socket.send(data, { binary: isBinary })),
  );
  echoUrl = `ws://127.0.0.1:${(server.address() as { port: number }).port}/`;
  dir = await mkdtemp(join(tmpdir(), "throng-echo-verdict-"));
});

afterAll(async () => {
  for (const client of server.clients) client.terminate();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Runs a plan with the CLI from source; resolves with its exit code and what it printed. */
async function runPlan(plan: PlanSpecInput): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const path = join(dir, `${plan.name.replace(/\W+/g, "-")}.json`);
  await writeFile(path, JSON.stringify(plan));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(agentDir, "src", "cli", "main.ts"), "run", path, "--engines", "1"],
    { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += String(chunk)));
  child.stderr.on("data", (chunk) => (stderr += String(chunk)));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, stdout, stderr };
}

const pingPong = (
  name: string,
  scenario: Partial<Extract<PlanSpecInput["scenario"], { kind: "ping-pong" }>> = {},
): PlanSpecInput => ({
  name,
  target: { protocol: "websocket", url: echoUrl },
  scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64, ...scenario },
  load: { clients: 4, durationSec: 4 },
});

describe("throng-agent run against a plain WebSocket echo server (issue 27 §0)", () => {
  it("a ping-pong with the default message and matching measures no round trip: it is incomplete (exit 6), says none matched the ping's seq and to check match, and says sends made and skipped apart", async () => {
    const { code, stdout, stderr } = await runPlan(pingPong("echo default"));
    expect(code, `${stdout}\n${stderr}`).toBe(ExitCode.incomplete);
    const schedule = /^ {2}schedule +(\d+) of (\d+) scheduled sends made, (\d+) skipped$/m.exec(stdout);
    expect(schedule, stdout).not.toBeNull();
    const [made, scheduled, skipped] = schedule!.slice(1).map(Number) as [number, number, number];
    // Each client's first ping went out and was echoed; every later due ping found it unanswered.
    expect(made).toBe(4);
    expect(skipped).toBeGreaterThan(0);
    expect(made + skipped).toBeLessThanOrEqual(scheduled + 4);
    const verdict = stdout.split("\n").find((line) => line.startsWith("verdict: "));
    expect(verdict).toMatch(/^verdict: INCOMPLETE \(not passed\) — /);
    expect(verdict).toMatch(
      /the ping-pong scenario measured no round trips: 4 messages sent, 4 messages received; received 4 messages, none matched the ping's seq by the default match \(a JSON reply \{"type":"pong","seq":N\}\): check `match`/,
    );
    expect(verdict).toMatch(
      /the load fell short of its schedule: 0 of \d+ scheduled messages sent \(\d+ more skipped: not sends\)/,
    );
    expect(stdout).not.toMatch(/server answered slower|replies came slower/);
  }, 60_000);

  it("the same server with in-order matching measures round trips, so nothing is said about matching", async () => {
    const { code, stdout, stderr } = await runPlan(pingPong("echo in order", { match: { by: "order" } }));
    expect(code, `${stdout}\n${stderr}`).not.toBeNull();
    expect(stdout).toMatch(/^ {2}round trip +p50 [\d.]+ ms/m);
    expect(stdout).not.toMatch(/measured no round trips|none matched/);
  }, 60_000);
});
