// What `bench:agent --vs TOOL` shares between competitors: the scenarios, a neutral meter (the target's own
// /stats counters plus the tool's whole process tree read from /proc), the pinned, bounded tool run, and the table.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { get } from "node:http";

/** The same scenarios as the Throng rows of bench:agent, described once for every tool. */
export type VsScenario =
  | { kind: "s1"; clients: number; intervalMs: number; rampUpSec: number; holdSec: number }
  | { kind: "s2"; protocol: "websocket" | "tcp"; connections: number; durationSec: number }
  | { kind: "s3"; clients: number; holdSec: number };

export interface VsTarget {
  wsUrl: string;
  tcpPort: number;
}

/** How long a scenario's load lasts: S1 its ramp and hold, S2 its duration, S3 its hold. */
export function scenarioSeconds(scenario: VsScenario): number {
  if (scenario.kind === "s1") return scenario.rampUpSec + scenario.holdSec;
  return scenario.kind === "s2" ? scenario.durationSec : scenario.holdSec;
}

export function scenarioLabel(scenario: VsScenario): string {
  if (scenario.kind === "s1")
    return `S1 ping ${scenario.intervalMs} ms, ${scenario.clients.toLocaleString("en-US")} clients`;
  if (scenario.kind === "s2") return `S2 echo ${scenario.protocol === "tcp" ? "TCP len2" : "WebSocket"}`;
  return `S3 login storm WS, ${scenario.clients.toLocaleString("en-US")}`;
}

/** One tool's figures for one scenario, every rate counted by the target, every CPU/RSS from /proc. */
export interface VsResult {
  tool: string;
  scenario: VsScenario;
  /** Set when the tool did not run this scenario (not installed, no such transport, failed). */
  notRun?: string;
  connected?: number;
  /** S1/S2: messages the target received per second in the steady window. */
  rate?: number;
  /** S3: connections accepted in the busiest second, and the seconds from the first to the last. */
  connPeak?: number;
  connSeconds?: number;
  cpuPercent?: number;
  /** Tool CPU µs per message (S1/S2) or per connection (S3). */
  cpuUsPerUnit?: number;
  rssBytes?: number;
  /** The tool's own latency figures, in its own words. */
  latency?: string;
  note?: string;
}

/** What a competitor module provides: whether it can run, and how it runs one scenario. */
export interface VsTool {
  name: string;
  /** Installs on demand; a reason when the tool cannot be had. */
  prepare(): Promise<string | undefined>;
  /** The pinned command for one scenario, or why this tool cannot reproduce it. */
  command(
    scenario: VsScenario,
    target: VsTarget,
    dir: string,
  ): { argv: string[]; env?: Record<string, string> } | { unsupported: string };
  /** The tool's own latency report after the run, read from its output files. */
  latency(scenario: VsScenario, dir: string, output: string): string | undefined;
  /** Run after the tool exits (e.g. stop daemons the tool left behind). */
  cleanup?(): void;
}

interface TargetCounters {
  clients: number;
  accepted: number;
  messages: number;
}

export function targetCounters(target: VsTarget): Promise<TargetCounters | undefined> {
  const url = target.wsUrl.replace("ws://", "http://").replace(/\/ws$/, "/stats");
  return new Promise((resolve) => {
    get(url, { agent: false }, (response) => {
      let body = "";
      response.on("data", (chunk) => (body += String(chunk)));
      response.on("end", () => resolve(JSON.parse(body) as TargetCounters));
    }).on("error", () => resolve(undefined));
  });
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/**
 * CPU ticks (user + system) and RSS of `root` and all its descendants, from /proc. `seen` keeps each process's
 * last ticks, so a process that exits (Tsung starts and ends helpers) still counts what it used.
 */
export function treeUsage(
  root: number,
  seen = new Map<number, number>(),
): { ticks: number; rssBytes: number; pids: number } {
  const parents = new Map<number, number>();
  const stats = new Map<number, string[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const raw = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name, which may itself contain spaces and parentheses.
      const fields = raw.slice(raw.lastIndexOf(")") + 2).split(" ");
      parents.set(Number(entry), Number(fields[1]));
      stats.set(Number(entry), fields);
    } catch {
      // The process exited between readdir and read.
    }
  }
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (tree.has(pid) || !tree.has(parent)) continue;
      tree.add(pid);
      grew = true;
    }
  }
  let rssPages = 0;
  for (const pid of tree) {
    const fields = stats.get(pid);
    if (!fields) continue;
    // utime, stime (fields 14 and 15 of stat, 12 and 13 after the name), rss pages (field 24 → 22).
    seen.set(pid, Number(fields[11]) + Number(fields[12]));
    rssPages += Number(fields[21]);
  }
  const ticks = [...seen.values()].reduce((a, b) => a + b, 0);
  return { ticks, rssBytes: rssPages * 4096, pids: tree.size };
}

interface Sample extends TargetCounters {
  at: number;
  ticks: number;
  rssBytes: number;
}

export interface ToolRun {
  samples: Sample[];
  output: string;
  exitCode: number | null;
  /** Why the bench stopped the tool itself (time or memory bound). */
  killed?: string;
}

/** A whole process tree's memory bound: past it the tool is killed and the row says so. */
const RSS_CAP_BYTES = Number(process.env.BENCH_VS_RSS_CAP_MIB ?? 6144) * 1048576;

/** Process groups of tools still running: killed if the bench itself exits or is interrupted. */
const running = new Set<number>();
const killRunning = () => {
  for (const group of running) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
};
let cleanupInstalled = false;
function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on("exit", killRunning);
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => {
      killRunning();
      process.exit(130);
    });
}

/**
 * Runs one tool command pinned to `cpu` in its own process group, sampling the target's counters and the
 * tool's process tree every `everyMs`, and kills the whole group when it exits, overstays `timeoutSec`, grows
 * past the memory bound, or the bench fails.
 */
export async function runTool(
  argv: string[],
  options: {
    cpu: string;
    target: VsTarget;
    timeoutSec: number;
    everyMs: number;
    env?: Record<string, string>;
    cwd: string;
  },
): Promise<ToolRun> {
  installCleanup();
  const child = spawn("taskset", ["-c", options.cpu, ...argv], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid) running.add(child.pid);
  let output = "";
  const keep = (chunk: Buffer) => (output = (output + String(chunk)).slice(-200_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.once("error", (error) => {
      keep(Buffer.from(`cannot start ${argv[0]}: ${error.message}`));
      resolve(null);
    });
  });
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  const samples: Sample[] = [];
  let killed: string | undefined;
  const killGroup = () => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // Already gone.
    }
    running.delete(child.pid!);
  };
  const deadline = performance.now() + options.timeoutSec * 1000;
  const seen = new Map<number, number>();
  try {
    while (exitCode === undefined) {
      const counters = await targetCounters(options.target);
      const usage = treeUsage(child.pid!, seen);
      if (counters) samples.push({ ...counters, at: performance.now(), ticks: usage.ticks, rssBytes: usage.rssBytes });
      if (usage.rssBytes > RSS_CAP_BYTES) {
        killed = `killed at ${Math.round(usage.rssBytes / 1048576)} MiB RSS (bound ${RSS_CAP_BYTES / 1048576} MiB)`;
        break;
      }
      if (performance.now() > deadline) {
        killed = `killed after ${options.timeoutSec} s (time bound)`;
        break;
      }
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, options.everyMs))]);
    }
  } finally {
    killGroup();
  }
  await exited;
  return { samples, output, exitCode: exitCode ?? null, ...(killed ? { killed } : {}) };
}

/**
 * The steady seconds: from 2 s after the client count reached its plateau (98% of its peak) to the last second
 * it held it. A tool still connecting when the run ended has no plateau: then the seconds at ≥ 90% of its peak.
 */
function plateau(samples: Sample[]): { window: Sample[]; steady: boolean } {
  const peak = Math.max(0, ...samples.map((s) => s.clients));
  const held = (share: number) => {
    const full = samples.map((s, i) => (s.clients >= peak * share ? i : -1)).filter((i) => i >= 0);
    return full.length ? samples.slice(full[0], full[full.length - 1]! + 1) : [];
  };
  if (peak === 0) return { window: [], steady: false };
  const top = held(0.98);
  const steady = top.filter((s) => s.at >= top[0]!.at + 2_000);
  if (steady.length >= 3) return { window: steady, steady: true };
  return { window: held(0.9), steady: false };
}

/** The figures of one run, from the target's counters and the tool's /proc samples. */
export function figures(scenario: VsScenario, run: ToolRun): Omit<VsResult, "tool" | "scenario" | "latency"> {
  const { samples } = run;
  const connected = Math.max(0, ...samples.map((s) => s.clients));
  const rssBytes = Math.max(0, ...samples.map((s) => s.rssBytes));
  const note = run.killed ?? (run.exitCode !== 0 ? `exit ${run.exitCode}: ${lastLines(run.output)}` : undefined);
  if (scenario.kind === "s3") {
    const first = samples[0];
    const last = samples[samples.length - 1];
    if (!first || !last) return { connected, rssBytes, ...(note ? { note } : {}) };
    // The busiest second, as Throng's own per-second counters give it: a 1 s window sliding over the samples.
    let connPeak = 0;
    for (let i = 0; i < samples.length; i += 1) {
      const j = samples.findIndex((s) => s.at - samples[i]!.at >= 1_000);
      if (j < 0) break;
      connPeak = Math.max(
        connPeak,
        ((samples[j]!.accepted - samples[i]!.accepted) * 1000) / (samples[j]!.at - samples[i]!.at),
      );
    }
    const total = last.accepted - first.accepted;
    const began = samples.find((s) => s.accepted > first.accepted);
    const done = samples.find((s) => s.accepted >= last.accepted);
    const connSeconds = began && done ? (done.at - samples[samples.indexOf(began) - 1]!.at) / 1000 : 0;
    // CPU over the connecting seconds only, per connection.
    const busyTicks = began && done ? done.ticks - samples[samples.indexOf(began) - 1]!.ticks : 0;
    return {
      connected: total,
      connPeak,
      connSeconds,
      cpuPercent: connSeconds > 0 ? (busyTicks / CLOCK_TICKS / connSeconds) * 100 : 0,
      cpuUsPerUnit: total > 0 ? ((busyTicks / CLOCK_TICKS) * 1e6) / total : 0,
      rssBytes,
      ...(note ? { note } : {}),
    };
  }
  const { window, steady } = plateau(samples);
  if (window.length < 2) return { connected, rssBytes, note: note ?? `no steady window (peak ${connected} clients)` };
  const unsteady = steady
    ? undefined
    : `no steady plateau: rate over the ${window.length} samples at ≥ 90% of its peak clients`;
  const notes = [note, unsteady].filter(Boolean).join("; ");
  const from = window[0]!;
  const to = window[window.length - 1]!;
  const seconds = (to.at - from.at) / 1000;
  const rate = (to.messages - from.messages) / seconds;
  const cpuSeconds = (to.ticks - from.ticks) / CLOCK_TICKS;
  return {
    connected,
    rate,
    cpuPercent: (cpuSeconds / seconds) * 100,
    cpuUsPerUnit: rate > 0 ? (cpuSeconds * 1e6) / (rate * seconds) : 0,
    rssBytes,
    ...(notes ? { note: notes } : {}),
  };
}

function lastLines(output: string): string {
  return output.trim().split("\n").slice(-2).join(" / ").replace(/\|/g, "/").slice(0, 200);
}

/**
 * Runs every scenario on every tool, scenario by scenario (so the tools of one row share the machine's load of
 * the moment); a tool that cannot be prepared gets a row per scenario saying why.
 */
export async function runComparison(
  tools: VsTool[],
  scenarios: VsScenario[],
  target: VsTarget,
  options: { cpu: string; dir: string },
): Promise<VsResult[]> {
  const unavailable = new Map<string, string>();
  for (const tool of tools) {
    console.error(`--vs ${tool.name}: preparing`);
    const why = await tool.prepare();
    if (why) {
      console.error(`--vs ${tool.name}: not available: ${why}; running the rest`);
      unavailable.set(tool.name, why);
    }
  }
  const results: VsResult[] = [];
  for (const scenario of scenarios) {
    for (const tool of tools) {
      const why = unavailable.get(tool.name);
      if (why) {
        results.push({ tool: tool.name, scenario, notRun: `not available: ${why}` });
        continue;
      }
      const command = tool.command(scenario, target, options.dir);
      if ("unsupported" in command) {
        results.push({ tool: tool.name, scenario, notRun: command.unsupported });
        continue;
      }
      console.error(`--vs ${tool.name}: ${scenarioLabel(scenario)}`);
      const expectedSec = scenarioSeconds(scenario);
      try {
        // 150 s of slack: k6 initialises every VU before it starts, which takes long for 19.5k of them.
        const run = await runTool(command.argv, {
          cpu: options.cpu,
          target,
          cwd: options.dir,
          timeoutSec: expectedSec + 150,
          everyMs: scenario.kind === "s3" ? 250 : 1_000,
          ...(command.env ? { env: command.env } : {}),
        });
        const latency = tool.latency(scenario, options.dir, run.output);
        results.push({ tool: tool.name, scenario, ...figures(scenario, run), ...(latency ? { latency } : {}) });
      } catch (error) {
        results.push({ tool: tool.name, scenario, notRun: `failed: ${(error as Error).message}` });
      } finally {
        tool.cleanup?.();
      }
      // Every connection of this run closed before the next run counts.
      await waitForIdleTarget(target);
    }
  }
  return results;
}

async function waitForIdleTarget(target: VsTarget): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    const counters = await targetCounters(target);
    if (!counters || counters.clients === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

const ratio = (a: number | undefined, b: number | undefined) => (a && b ? `${fmt(a / b, 2)}×` : "-");

/** Markdown table: one row per scenario and tool, Throng first, with the ratios against Throng. */
export function comparisonTable(results: VsResult[]): string {
  const header = [
    "scenario",
    "tool",
    "connected",
    "achieved (counted by the target)",
    "tool CPU",
    "CPU per msg / conn",
    "tool RSS",
    "tool's own latency",
    "Throng ÷ tool (rate)",
    "tool ÷ Throng (CPU per msg / conn)",
    "notes",
  ];
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  const key = (r: VsResult) => scenarioLabel(r.scenario);
  for (const result of results) {
    const throng = results.find((r) => r.tool === "Throng" && key(r) === key(result));
    const s3 = result.scenario.kind === "s3";
    if (result.notRun) {
      lines.push(`| ${key(result)} | ${result.tool} | - | ${result.notRun} | - | - | - | - | - | - | - |`);
      continue;
    }
    const achieved = s3
      ? result.connPeak !== undefined
        ? `${fmt(result.connPeak)} conn/s peak; all in ${fmt(result.connSeconds ?? 0, 1)} s`
        : "-"
      : result.rate !== undefined
        ? `${fmt(result.rate)} msg/s`
        : "-";
    const own = result.tool === "Throng";
    lines.push(
      `| ${[
        key(result),
        result.tool,
        result.connected !== undefined
          ? `${fmt(result.connected)} of ${fmt(result.scenario.kind === "s2" ? result.scenario.connections : result.scenario.clients)}`
          : "-",
        achieved,
        result.cpuPercent !== undefined ? `${fmt(result.cpuPercent, 1)}%` : "-",
        result.cpuUsPerUnit ? `${fmt(result.cpuUsPerUnit, 1)} µs` : "-",
        result.rssBytes ? `${fmt(result.rssBytes / 1048576)} MiB` : "-",
        result.latency ?? "-",
        own ? "-" : ratio(s3 ? throng?.connPeak : throng?.rate, s3 ? result.connPeak : result.rate),
        own ? "-" : ratio(result.cpuUsPerUnit, throng?.cpuUsPerUnit),
        result.note ?? "",
      ].join(" | ")} |`,
    );
  }
  return lines.join("\n");
}
