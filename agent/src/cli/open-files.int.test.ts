import { execFile, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PlanSpecInput } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { startTarget, type RunningTarget, type TargetStats } from "../target/target-server";
import { agentDir, cliProcesses, repoRoot } from "../testing/cli-process";
import { ExitCode } from "./exit-codes";

// Issue 25: an engine out of open files must not die, a shard's engines fit its clients under the limit, the
// limit is raised at start, and the reference target serves from several processes.
const run = promisify(execFile);
const { cli, outputOf, exitCode, killAll } = cliProcesses();
let target: RunningTarget;
let dir: string;

beforeAll(async () => {
  await run(process.execPath, [join(agentDir, "build.mjs")], { cwd: repoRoot });
  target = await startTarget({ port: 0 });
  dir = await mkdtemp(join(tmpdir(), "throng-open-files-"));
});
afterEach(killAll);
afterAll(async () => {
  await target?.close();
  await rm(dir, { recursive: true, force: true });
});

async function planFile(name: string, clients: number, durationSec: number): Promise<string> {
  const plan: PlanSpecInput = {
    name,
    target: { protocol: "websocket", url: target.url },
    scenario: { kind: "ping-pong", intervalMs: 1_000, messageBytes: 64 },
    load: { clients, durationSec, rampUpSec: 1 },
  };
  const path = join(dir, `${name}.json`);
  await writeFile(path, JSON.stringify(plan));
  return path;
}

const seconds = async (path: string) =>
  (await readFile(path, "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as MetricSnapshot);

function statsOf(url: string): Promise<TargetStats> {
  return new Promise((resolve, reject) => {
    get(url.replace("ws://", "http://").replace(/\/ws$/, "/stats"), { agent: false }, (response) => {
      let body = "";
      response.on("data", (chunk) => (body += String(chunk)));
      response.on("end", () => resolve(JSON.parse(body) as TargetStats));
    }).on("error", reject);
  });
}

describe("throng-agent under an open-file limit", () => {
  it("an engine at its limit refuses the connections past it (cause limit) and lives to the run's end", async () => {
    // 400 descriptors: 144 for connections once the engine's 256 are kept (its own few among them); 500 clients cannot all fit, and without the reserve the engine died of EMFILE reading its own RSS.
    const out = join(dir, "at-limit.jsonl");
    const child = cli(
      "bundle",
      ["run", await planFile("at-limit", 500, 4), "--engines", "1", "--quiet", "--out", out],
      process.env,
      400,
    );
    const output = outputOf(child);
    const code = await exitCode(child);
    expect(output.stderr()).not.toMatch(/EMFILE: too many open files/);
    expect([ExitCode.ok, ExitCode.incomplete]).toContain(code);
    const lines = await seconds(out);
    expect(lines.at(-1)!.seq).toBe(3);
    const open = Math.max(...lines.map((s) => s.counters.connectionsOpen));
    expect(open).toBe(144);
    const limited = lines.reduce((sum, s) => sum + (s.counters.errorsByKind?.limit ?? 0), 0);
    expect(limited).toBeGreaterThanOrEqual(500 - open);
    // Its health was sampled every second, RSS included, with no descriptor to spare for connections.
    expect(lines.every((s) => s.health.rssBytes > 0)).toBe(true);
  });

  it("without --engines, sizes the engine processes to the clients, says so, and holds them all", async () => {
    const out = join(dir, "sized.jsonl");
    // 8 s: on a busy host the seventh engine can fork seconds after the first, and all must be up at once.
    const child = cli("bundle", ["run", await planFile("sized", 1_000, 8), "--quiet", "--out", out], process.env, 400);
    const output = outputOf(child);
    // Incomplete is a busy host's verdict on the send schedule; what this guards is below: every client held at once.
    expect([ExitCode.ok, ExitCode.incomplete]).toContain(await exitCode(child));
    expect(output.stderr()).toContain(
      "note: 1,000 clients need 7 engine processes (up to 144 connections each under the open-file limit of 400;",
    );
    expect(output.stdout()).toContain("7 engine(s)");
    const lines = await seconds(out);
    expect(Math.max(...lines.map((s) => s.counters.connectionsOpen))).toBe(1_000);
    expect(lines.reduce((sum, s) => sum + s.counters.connectionsFailed, 0)).toBe(0);
  });

  it("refuses, before any load, a plan even 256 engine processes cannot hold, naming the limit and how to raise it", async () => {
    const before = target.stats().accepted;
    const child = cli("bundle", ["run", await planFile("too-big", 12_000, 4), "--quiet"], process.env, 300);
    const output = outputOf(child);
    expect(await exitCode(child)).toBe(ExitCode.usage);
    expect(output.stderr()).toMatch(
      /error: 12,000 clients do not fit this agent: at most 256 engine processes of 44 clients each \(open-file limit 300 per process, less 256 kept for the engine itself\) hold 11,264; raise the open-file limit where the agent starts: `ulimit -n 1048576`.*LimitNOFILE=1048576.*docker run --ulimit nofile.*Helm chart/,
    );
    expect(target.stats().accepted).toBe(before);
  });

  it("raises a soft limit below the hard one at start with the native addon's setrlimit, else prlimit --pid, and says which", async () => {
    // Node raises the soft limit itself at start-up, so the child lowers it first, then raises it the agent's way.
    const script = join(dir, "raise.ts");
    await writeFile(
      script,
      `import { execFileSync } from "node:child_process";
import { openFileNote, raiseOpenFileLimit, systemRaiseWays } from ${JSON.stringify(join(agentDir, "src", "engine", "open-files.ts"))};
const lower = () => execFileSync("prlimit", ["--pid", String(process.pid), "--nofile=1024:"]);
lower();
const native = raiseOpenFileLimit();
lower();
const fallback = raiseOpenFileLimit({ ...systemRaiseWays, native: () => "throng-io.node not loaded" });
console.log(JSON.stringify({ native: openFileNote(native), fallback: openFileNote(fallback), hard: native.hard }));
`,
    );
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += String(chunk)));
    expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
    const { native, fallback, hard } = JSON.parse(out) as { native: string; fallback: string; hard: number };
    const limit = hard.toLocaleString("en-US");
    expect(native).toBe(`note: open-file limit raised from 1,024 to ${limit} per process (setrlimit, native addon)`);
    expect(fallback).toBe(`note: open-file limit raised from 1,024 to ${limit} per process (prlimit --pid)`);
  });
});

describe("throng-agent target --processes", () => {
  it("serves one port from several processes, each connection answered, and GET /stats sums them whichever process answers", async () => {
    const child = cli("bundle", ["target", "--port", "0", "--processes", "3"]);
    const output = outputOf(child);
    const url = (await output.line(/^target listening on /)).replace("target listening on ", "");
    await output.line(/^target serving from 3 processes/);
    const { WebSocket } = await import("ws");
    const sockets = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const socket = new WebSocket(url);
        return new Promise<InstanceType<typeof WebSocket>>((resolve, reject) => {
          socket.once("open", () => socket.send(`{"type":"ping","seq":${i},"client":${i},"pad":""}`));
          socket.once("message", (data) =>
            String(data) === `{"type":"pong","seq":${i}}` ? resolve(socket) : reject(new Error(String(data))),
          );
          socket.once("error", reject);
        });
      }),
    );
    // The kernel spread them: more than one of the target's processes holds connections on its port.
    const port = new URL(url).port;
    const holders = new Set(
      execFileSync("ss", ["-Htnp", "state", "established", `( sport = :${port} )`], { encoding: "utf8" }).match(
        /pid=\d+/g,
      ),
    );
    expect(holders.size).toBeGreaterThan(1);
    // Each process is a session of its own, so a scheduler that shares the CPU by session weighs the target as its
    // three processes, not as one (beside four agents on one host, one session starved it).
    const pids = [child.pid!, ...workersOf(child.pid!)];
    expect(pids).toHaveLength(3);
    expect(new Set(pids.map(sessionOf)).size).toBe(3);
    // A fresh connection per request: each may land on any of the three, and every one answers the whole target.
    for (let i = 0; i < 6; i += 1)
      expect(await statsOf(url)).toMatchObject({ clients: 60, accepted: 60, messages: 60, processes: 3 });
    const stats = await statsOf(url);
    expect(stats.rssBytes).toBeGreaterThan(3 * 20 * 2 ** 20);
    expect(stats.pssBytes).toBeLessThan(stats.rssBytes);
    for (const socket of sockets) socket.close();
    child.kill("SIGTERM");
    expect(await exitCode(child)).toBe(ExitCode.ok);
  });

  it("takes its other processes with it when it is killed outright, though each runs in a session of its own", async () => {
    const child = cli("bundle", ["target", "--port", "0", "--processes", "3"]);
    await outputOf(child).line(/^target serving from 3 processes/);
    const workers = workersOf(child.pid!);
    expect(workers).toHaveLength(2);
    child.kill("SIGKILL");
    await exitCode(child);
    await expect
      .poll(() => workers.filter((pid) => existsSync(`/proc/${pid}`)), { timeout: 10_000, interval: 100 })
      .toEqual([]);
  });
});

/** The session id of a process (field 6 of /proc/PID/stat, after the command's closing parenthesis). */
function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
}

/** The processes `pid` forked. */
function workersOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
}
