// `npm run bench:agent -- --only c200k` (and `--only ceiling`): one rig's connections at scale (issue 25). The
// reference target serves from enough processes (--processes) to hold them, each under this VM's open-file limit;
// the agent runs with no flags but --out, so it sizes its own engine processes. Memory is the PSS summed over each
// side's process tree (Node's code pages are shared between processes); RSS sums are given too. See docs/benchmarks.md.
import { spawn, type ChildProcess } from "node:child_process";
import { killSession, spawnInSession } from "./sessions";
import { readFileSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import type { PlanSpecInput } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { localRun } from "../src/metrics/run-summary";
import { openFileLimit } from "../src/metrics/health";
import { clientsPerEngine } from "../src/engine/open-files";
import type { TargetStats } from "../src/target/target-server";
import { privateByKind, socketStats, treeCpuSeconds, treeMemory } from "./process-tree";

export const SCALE_SCENARIOS = ["c200k", "ceiling"] as const;

export interface ScaleBenchOptions {
  bundle: string;
  work: string;
  agentCpu: string;
  targetCpu: string;
  quick: boolean;
  /** BENCH_AUTOGROUP_NICE: the agent's and the target's sessions weighed against the host's others (sessions.ts). */
  autogroupNice?: number;
}

const MiB = 2 ** 20;
const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ScaleTarget {
  child: ChildProcess;
  url: string;
  stats(): Promise<TargetStats>;
}

/** The reference target from `processes` processes on one core, until killed. */
async function startScaleTarget(options: ScaleBenchOptions, processes: number): Promise<ScaleTarget> {
  const child = spawnInSession(
    "taskset",
    [
      "-c",
      options.targetCpu,
      process.execPath,
      options.bundle,
      "target",
      "--port",
      "0",
      "--processes",
      String(processes),
    ],
    { stdout: "pipe", ...nice(options) },
  );
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      out += String(chunk);
      const listening = /target listening on (\S+)/.exec(out);
      if (listening && out.includes("serving from")) resolve(listening[1]!);
      else if (listening && processes === 1) resolve(listening[1]!);
    });
    child.once("exit", (code) => reject(new Error(`target exited ${code}`)));
  });
  const statsUrl = url.replace("ws://", "http://").replace(/\/ws$/, "/stats");
  const stats = () =>
    new Promise<TargetStats>((resolve, reject) => {
      get(statsUrl, { agent: false }, (response) => {
        let body = "";
        response.on("data", (chunk) => (body += String(chunk)));
        response.on("end", () => resolve(JSON.parse(body) as TargetStats));
      }).on("error", reject);
    });
  return { child, url, stats };
}

/** Processes for a target holding `clients`, each under this VM's open-file limit with room for an uneven spread. */
function targetProcesses(clients: number): number {
  return Math.max(1, Math.ceil((clients * 1.1) / clientsPerEngine(openFileLimit() ?? 1_024)));
}

/** What one hold measured: every figure the c200k rows print. */
interface HoldResult {
  clients: number;
  /** The most connections the agent held at once (what its memory is per 1,000 of). */
  connected: number;
  engines: string;
  targetPeak: number;
  connectPerSec: { peak: number; mean: number; seconds: number };
  failed: number;
  errors: Record<string, number>;
  sent: number;
  answered: number;
  /** Pings in flight when the run ended: neither answered nor lost. */
  inFlightAtEnd: number;
  agentCpuPercent: number;
  usPerPingPong: number;
  agent: ReturnType<typeof treeMemory>;
  /** The agent's own process (the CLI that forked the engines). */
  parentPssBytes: number;
  /** The largest engine's private memory by kind. */
  engineKinds: ReturnType<typeof privateByKind>;
  target: TargetStats;
  sockets: ReturnType<typeof socketStats>;
  rttP50: number | null;
  rttP99: number | null;
  load: string;
  freeMemoryMiB: number;
}

const nice = (options: ScaleBenchOptions) =>
  options.autogroupNice !== undefined ? { autogroupNice: options.autogroupNice } : {};

const loadNow = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");

function memAvailableMiB(): number {
  return Number(/MemAvailable:\s+(\d+) kB/.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0) / 1024;
}

/** 164-byte pings every 10 s, held `holdSec` after a ramp of `rampUpSec`: the agent with no flags but --out. */
async function hold(
  options: ScaleBenchOptions,
  clients: number,
  rampUpSec: number,
  holdSec: number,
): Promise<HoldResult> {
  const target = await startScaleTarget(options, targetProcesses(clients));
  try {
    const plan: PlanSpecInput = {
      name: `c${clients / 1000}k`,
      target: { protocol: "websocket", url: target.url },
      scenario: { kind: "ping-pong", intervalMs: 10_000, messageBytes: 164, responseBytes: 71 },
      load: { clients, durationSec: rampUpSec + holdSec, rampUpSec },
    };
    const name = `scale-${clients}`;
    const planPath = join(options.work, `${name}.json`);
    const out = join(options.work, `${name}.jsonl`);
    writeFileSync(planPath, JSON.stringify(plan));
    const agent = spawnInSession(
      "taskset",
      ["-c", options.agentCpu, process.execPath, options.bundle, "run", planPath, "--quiet", "--out", out],
      { stdout: "pipe", stderr: "pipe", ...nice(options) },
    );
    let notes = "";
    agent.stderr!.on("data", (chunk) => (notes += String(chunk)));
    agent.stdout!.on("data", () => {});
    const exited = new Promise<number | null>((resolve) => agent.once("exit", resolve));
    const killer = setTimeout(() => agent.kill("SIGKILL"), (rampUpSec + holdSec + 120) * 1000);
    // Bounded: one sample every 2 s until the hold's last seconds, then the memory and CPU at its end.
    let targetPeak = 0;
    const holdStartsAt = performance.now() + (rampUpSec + 5) * 1000;
    const holdEndsAt = performance.now() + (rampUpSec + holdSec - 3) * 1000;
    let cpuAtHoldStart: { at: number; seconds: number } | undefined;
    while (performance.now() < holdEndsAt && agent.exitCode === null) {
      await sleep(2_000);
      targetPeak = Math.max(targetPeak, (await target.stats().catch(() => undefined))?.clients ?? 0);
      if (!cpuAtHoldStart && performance.now() >= holdStartsAt)
        cpuAtHoldStart = { at: performance.now(), seconds: treeCpuSeconds(agent.pid!) };
    }
    const cpuAtHoldEnd = { at: performance.now(), seconds: treeCpuSeconds(agent.pid!) };
    const memory = treeMemory(agent.pid!);
    const largestEngine = memory.each.find((e) => e.pid !== agent.pid);
    const engineKinds = privateByKind(largestEngine?.pid ?? agent.pid!);
    const sockets = socketStats();
    const targetStats = await target.stats();
    targetPeak = Math.max(targetPeak, targetStats.clients);
    const freeMemoryMiB = memAvailableMiB();
    const code = await exited;
    clearTimeout(killer);
    if (code !== 0 && code !== 5 && code !== 6) throw new Error(`agent exited ${code}: ${notes}`);
    const seconds = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as MetricSnapshot);
    // The hold: from 5 s after the ramp to the last whole second, as the CPU was measured.
    const held = seconds.filter((s) => s.seq >= rampUpSec + 5 && s.intervalMs >= 900);
    const whole = localRun(seconds).summary!;
    const heldSummary = localRun(held).summary!;
    const opening = seconds.map((s) => s.counters.connectionsOpened).filter((n) => n > 0);
    const cpuSec = cpuAtHoldStart ? cpuAtHoldEnd.seconds - cpuAtHoldStart.seconds : Number.NaN;
    const wallSec = cpuAtHoldStart ? (cpuAtHoldEnd.at - cpuAtHoldStart.at) / 1000 : Number.NaN;
    const answeredPerSec = heldSummary.messagesReceived / Math.max(1, held.length);
    const enginesNote =
      /note: (.* need \d+ engine processes)/.exec(notes)?.[1] ??
      /running .*?, (\d+ engine\(s\))/.exec(notes)?.[1] ??
      "one engine per core";
    return {
      clients,
      connected: Math.max(0, ...seconds.map((s) => s.counters.connectionsOpen)),
      engines: enginesNote,
      targetPeak,
      connectPerSec: {
        peak: Math.max(0, ...opening),
        mean: opening.reduce((a, b) => a + b, 0) / Math.max(1, opening.length),
        seconds: opening.length,
      },
      failed: whole.connectionsFailed,
      errors: whole.errorsByKind ?? {},
      sent: whole.messagesSent,
      answered: whole.messagesReceived,
      inFlightAtEnd: whole.inFlightAtEnd ?? 0,
      agentCpuPercent: (cpuSec / wallSec) * 100,
      usPerPingPong: ((cpuSec / wallSec) * 1e6) / Math.max(1, answeredPerSec),
      agent: memory,
      parentPssBytes: memory.each.find((e) => e.pid === agent.pid)?.pssBytes ?? 0,
      engineKinds,
      target: targetStats,
      sockets,
      rttP50: heldSummary.rttP50Ms,
      rttP99: heldSummary.rttP99Ms,
      load: loadNow(),
      freeMemoryMiB,
    };
  } finally {
    await stopTarget(target);
  }
}

/** Stops the target (its processes exit with their parent) and whatever of its session is left. */
async function stopTarget(target: ScaleTarget): Promise<void> {
  target.child.kill("SIGTERM");
  await new Promise((resolve) =>
    target.child.exitCode !== null ? resolve(undefined) : target.child.once("exit", resolve),
  );
  killSession(target.child);
}

/** An engine process on its own: forked with nothing to run, its PSS once it is ready. */
async function idleEngineMiB(bundle: string): Promise<{ pss: number; rss: number }> {
  const engine = spawn(
    process.execPath,
    [
      "-e",
      `const { fork } = require("node:child_process"); const c = fork(${JSON.stringify(bundle.replace("throng-agent.mjs", "throng-engine.mjs"))}, ["engine-child"], { execArgv: ["--max-semi-space-size=2"] }); c.once("message", () => console.log(c.pid)); setTimeout(() => c.disconnect(), 6000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const pid = await new Promise<number>((resolve) =>
    engine.stdout!.once("data", (chunk) => resolve(Number(String(chunk).trim()))),
  );
  await sleep(2_000);
  const memory = treeMemory(pid);
  await new Promise((resolve) => engine.once("exit", resolve));
  return { pss: memory.pssBytes / MiB, rss: memory.rssBytes / MiB };
}

function holdRows(result: HoldResult, idle: { pss: number; rss: number }): string[] {
  // Per 1,000 connections held: a hold that fell short is not credited with the clients it never had.
  const perK = (bytes: number) => fmt(bytes / MiB / (Math.max(1, result.connected) / 1000), 2);
  const engines = result.agent.each.length - 1;
  const pings = result.sent - result.inFlightAtEnd;
  const engineEach = result.agent.each.filter((e) => e.pssBytes !== result.parentPssBytes).map((e) => e.pssBytes / MiB);
  return [
    `| clients held | ${fmt(result.clients)} planned: the agent held ${fmt(result.connected)} at once, the target's own count reached ${fmt(result.targetPeak)}; ${fmt(result.failed)} connections failed ${JSON.stringify(result.errors)} |`,
    `| engines | ${result.engines} |`,
    `| connect rate | ${fmt(result.connectPerSec.mean)} connections/s over ${result.connectPerSec.seconds} s (peak second ${fmt(result.connectPerSec.peak)}) |`,
    `| pings answered | ${fmt(result.answered)} of ${fmt(pings)} (${fmt((100 * result.answered) / Math.max(1, pings), 3)}%; ${fmt(result.inFlightAtEnd)} more were in flight when the run ended); RTT p50 ${result.rttP50} ms, p99 ${result.rttP99} ms over the hold |`,
    `| agent CPU | ${fmt(result.agentCpuPercent, 1)}% of a core over the hold (its tree, /proc); ${fmt(result.usPerPingPong, 1)} µs per ping-pong |`,
    `| agent memory | PSS ${fmt(result.agent.pssBytes / MiB)} MiB = **${perK(result.agent.pssBytes)} MiB per 1,000 clients**; RSS ${fmt(result.agent.rssBytes / MiB)} MiB (${perK(result.agent.rssBytes)} per 1,000) over ${result.agent.processes} processes |`,
    `| per engine | PSS ${fmt(Math.min(...engineEach))}–${fmt(Math.max(...engineEach))} MiB each at ~${fmt(result.connected / engines)} clients; the parent ${fmt(result.parentPssBytes / MiB)} MiB; an idle engine on its own ${fmt(idle.pss, 1)} MiB PSS (${fmt(idle.rss, 1)} RSS); the largest engine's private memory: V8 and other anonymous maps ${fmt(result.engineKinds.anonymousBytes / MiB, 1)} MiB, malloc ${fmt(result.engineKinds.mallocBytes / MiB, 1)} MiB, other ${fmt(result.engineKinds.otherBytes / MiB, 1)} MiB |`,
    `| target memory | PSS ${fmt((result.target.pssBytes ?? 0) / MiB)} MiB (${perK(result.target.pssBytes ?? 0)} per 1,000), RSS ${fmt(result.target.rssBytes / MiB)} MiB (${perK(result.target.rssBytes)} per 1,000) over ${result.target.processes} processes; CPU ${fmt(result.target.cpuPercent, 1)}% |`,
    `| kernel sockets | ${result.sockets.line} (mem in pages: ${fmt(result.sockets.tcpMemBytes / MiB)} MiB of TCP buffers); MemAvailable ${fmt(result.freeMemoryMiB)} MiB at the hold's end |`,
    `| load average | ${result.load} at the hold's end |`,
  ];
}

/** A login storm: `clients` log in (session steps against the target's login) at `perSec` per second. */
async function loginStorm(options: ScaleBenchOptions, clients: number, perSec: number): Promise<string[]> {
  const target = await startScaleTarget(options, targetProcesses(clients));
  try {
    const storm: PlanSpecInput = {
      name: `login storm ${clients}`,
      target: { protocol: "websocket", url: target.url },
      scenario: {
        kind: "login-storm",
        connectsPerSec: perSec,
        timeoutMs: 10_000,
        session: [
          { kind: "send", message: { format: "json", body: '{"type":"login","client":{{client}},"seq":0}' } },
          { kind: "expect", reply: { json: { field: "type", equals: "login-ok" } } },
        ],
      },
      load: { clients, durationSec: Math.ceil(clients / perSec) + 5, rampUpSec: 0 },
    };
    const planPath = join(options.work, "login-storm.json");
    const out = join(options.work, "login-storm.jsonl");
    writeFileSync(planPath, JSON.stringify(storm));
    const agent = spawnInSession(
      "taskset",
      ["-c", options.agentCpu, process.execPath, options.bundle, "run", planPath, "--quiet", "--out", out],
      { stderr: "pipe", ...nice(options) },
    );
    agent.stderr!.on("data", () => {});
    const code = await new Promise<number | null>((resolve) => agent.once("exit", resolve));
    if (code !== 0 && code !== 5 && code !== 6) throw new Error(`login storm agent exited ${code}`);
    const seconds = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as MetricSnapshot);
    const summary = localRun(seconds).summary!;
    const loggedIn = summary.latency?.login?.count ?? 0;
    const opening = seconds.filter((s) => s.counters.connectionsOpened > 0);
    // From the logins counter: every second carries a login histogram, empty ones too.
    const lastLogin = Math.max(...seconds.map((s, i) => ((s.counters.loginsSucceeded ?? 0) > 0 ? i : -1)));
    const withinTenSec = seconds.slice(0, 10).reduce((sum, s) => sum + (s.counters.loginsSucceeded ?? 0), 0);
    return [
      `| login storm | ${fmt(clients)} clients at ${fmt(perSec)}/s (session: send login, expect login-ok): ${fmt(loggedIn)} logged in, ${fmt(withinTenSec)} of them in the first 10 s, the last in second ${lastLogin + 1}; connections opened in ${opening.length} s |`,
      `| login time | p50 ${summary.latency?.login?.p50Ms} ms, p99 ${summary.latency?.login?.p99Ms} ms, max ${summary.latency?.login?.maxMs} ms; connect p50 ${summary.latency?.connect?.p50Ms} ms, p99 ${summary.latency?.connect?.p99Ms} ms |`,
      `| login failures | ${fmt(summary.connectionsFailed)} connections failed; by cause ${JSON.stringify(summary.errorsByKind ?? {})} |`,
      `| load average | ${loadNow()} after the storm |`,
    ];
  } finally {
    await stopTarget(target);
  }
}

/** Why a hold fell short, from what it measured: the first limit that bites, with its figure. */
function whatStopped(result: HoldResult): string | undefined {
  const causes = Object.entries(result.errors).sort((a, b) => b[1] - a[1]);
  if (result.targetPeak < result.clients) {
    const [cause, count] = causes[0] ?? ["none", 0];
    const why =
      causes.length === 0
        ? `none failed: still connecting when the hold ended, at ${fmt(result.connectPerSec.mean)} connections/s`
        : `failures by cause ${JSON.stringify(result.errors)}${cause === "no-local-port" ? " (ephemeral ports)" : cause === "limit" ? " (open files)" : ""} (${fmt(count)})`;
    return `${fmt(result.targetPeak)} of ${fmt(result.clients)} connected; ${why}`;
  }
  const pings = result.sent - result.inFlightAtEnd;
  if (result.answered < pings * 0.999)
    return `${fmt((100 * result.answered) / pings, 2)}% of pings answered (agent CPU ${fmt(result.agentCpuPercent)}%, target CPU ${fmt(result.target.cpuPercent)}%)`;
  return undefined;
}

/** `--only c200k`: the 200,000-client hold, then the 50,000-client login storm. `--only ceiling`: holds up to 500,000. */
export async function runScaleBench(scenarios: readonly string[], options: ScaleBenchOptions): Promise<string> {
  const lines: string[] = ["| figure | result |", "|---|---|"];
  const idle = await idleEngineMiB(options.bundle);
  if (scenarios.includes("c200k")) {
    lines.push(`| load average | ${loadNow()} before |`);
    lines.push(...holdRows(await hold(options, 200_000, options.quick ? 40 : 20, options.quick ? 20 : 60), idle));
    lines.push(...(await loginStorm(options, 50_000, 5_000)));
  }
  if (scenarios.includes("ceiling")) {
    // Ramps of 6,000 connections/s: what this VM's two cores sustained beside the pings of the clients already up.
    for (const clients of [250_000, 300_000, 350_000, 400_000, 450_000, 500_000]) {
      const result = await hold(options, clients, Math.ceil(clients / 6_000), 30);
      const stopped = whatStopped(result);
      lines.push(
        `| ceiling step ${fmt(clients)} | ${stopped ? `**fell short**: ${stopped}` : "held"}; ${result.engines}; connect rate ${fmt(result.connectPerSec.mean)}/s (peak ${fmt(result.connectPerSec.peak)}); agent held ${fmt(result.connected)}, PSS ${fmt(result.agent.pssBytes / MiB)} MiB (${fmt(result.agent.pssBytes / MiB / (Math.max(1, result.connected) / 1000), 2)} per 1,000), target PSS ${fmt((result.target.pssBytes ?? 0) / MiB)} MiB; ${result.sockets.line}; MemAvailable ${fmt(result.freeMemoryMiB)} MiB; agent CPU ${fmt(result.agentCpuPercent)}%, target CPU ${fmt(result.target.cpuPercent)}%; ${fmt(result.usPerPingPong, 1)} µs per ping-pong; pings answered ${fmt((100 * result.answered) / Math.max(1, result.sent - result.inFlightAtEnd), 3)}%; load ${result.load} |`,
      );
      if (stopped) break;
    }
  }
  return lines.join("\n");
}
