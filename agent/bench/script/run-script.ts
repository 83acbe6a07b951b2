// `bench:agent --only script`: bots written with a game's own SDK (@colyseus/sdk against a real Colyseus server on
// this host) run as a Throng script through `throng-agent run --allow-scripts`, and the same bots module in one
// plain Node process (plain-bots.mjs); quiet and busy (a bounded busy-loop per core for the measurement's length)
// alternating round by round. Prints CPU per received broadcast and broadcast p50/p99 side by side, medians of the
// rounds. Nothing is pinned: the agent and the server run as a user would run them on a shared host.
import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PlanSpecInput } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { localFigures, localRun } from "../../src/metrics/run-summary";
import { treeUsage } from "../vs/shared";
import { killSession, spawnInSession } from "../sessions";

const here = fileURLToPath(new URL(".", import.meta.url));
const BOTS = join(here, "colyseus-bots.mjs");
const CLOCK_TICKS = 100; // USER_HZ

export interface ScriptBenchOptions {
  bundle: string;
  work: string;
  /** Players per step; rooms of `roomSize`, `hz` moves a second each. */
  players: number[];
  roomSize: number;
  hz: number;
  repeat: number;
  quick: boolean;
  /** Busy-loop processes while a busy row measures (default: one per core). */
  burners: number;
  /** One script row per entry: `--engines N`, or undefined for the agent's own choice. */
  engines: (number | undefined)[];
}

/** One measured window of one path. */
interface PathRun {
  broadcastsPerSec: number;
  cpuPercent: number;
  usPerBroadcast: number;
  p50Ms: number;
  p99Ms: number;
  /** The bots' joins (ctx.measure("join-ms")) over the whole run. */
  joinP50Ms: number;
  joinP99Ms: number;
  /** Throng only: seconds its health called the agent saturated. */
  saturatedSeconds?: number;
}

interface RoomServer {
  child: ChildProcess;
  port: number;
}

/** A process under test in a session of its own (sessions.ts). */
function startProcess(args: string[], options: { stdout?: "pipe" | "ignore" } = {}): ChildProcess {
  return spawnInSession(process.execPath, args, options);
}

function startRoomServer(roomSize: number): Promise<RoomServer> {
  const child = startProcess([join(here, "colyseus-server.mjs"), "--port", "0", "--room-size", String(roomSize)], {
    stdout: "pipe",
  });
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      out += String(chunk);
      const port = /colyseus listening on (\d+)/.exec(out);
      if (port) resolve({ child, port: Number(port[1]) });
    });
    child.once("exit", (code) => reject(new Error(`colyseus server exited ${code}`)));
  });
}

/** Busy-loop processes, each bounded to `seconds` by itself and killed by the caller at the latest. */
function startBurners(count: number, seconds: number): ChildProcess[] {
  const loop = `const end = Date.now() + ${Math.ceil(seconds * 1000)}; while (Date.now() < end);`;
  return Array.from({ length: count }, () => startProcess(["-e", loop]));
}

const stopAll = (children: ChildProcess[]) => children.forEach(killSession);

interface Timing {
  rampSec: number;
  warmupSec: number;
  measureSec: number;
}

function scriptPlan(server: RoomServer, players: number, options: ScriptBenchOptions, timing: Timing): PlanSpecInput {
  const url = `http://127.0.0.1:${server.port}`;
  return {
    name: `script bots ${players}`,
    target: { protocol: "websocket", url: `ws://127.0.0.1:${server.port}` },
    scenario: {
      kind: "script",
      script: { path: BOTS },
      roomSize: options.roomSize,
      parameters: { url, hz: options.hz, roomSize: options.roomSize },
      metrics: [{ name: "join-ms", kind: "histogram" }],
    },
    // One second more: the run's last, partial second is dropped.
    load: {
      clients: players,
      durationSec: timing.rampSec + timing.warmupSec + timing.measureSec + 1,
      rampUpSec: timing.rampSec,
    },
  };
}

/** The Throng script path: `throng-agent run --allow-scripts`, its process tree's CPU from /proc over the window. */
async function runThrong(
  server: RoomServer,
  players: number,
  options: ScriptBenchOptions & { engineCount?: number },
  timing: Timing,
  name: string,
): Promise<PathRun> {
  const planPath = join(options.work, `${name}.json`);
  const out = join(options.work, `${name}.jsonl`);
  writeFileSync(planPath, JSON.stringify(scriptPlan(server, players, options, timing)));
  const args = [
    options.bundle,
    "run",
    planPath,
    "--allow-scripts",
    "--quiet",
    "--out",
    out,
    ...(options.engineCount ? ["--engines", String(options.engineCount)] : []),
  ];
  const child = startProcess(args);
  const samples: { at: number; ticks: number }[] = [];
  const seen = new Map<number, number>();
  const sampler = setInterval(() => samples.push({ at: Date.now(), ticks: treeUsage(child.pid!, seen).ticks }), 500);
  const code = await exitOf(child);
  clearInterval(sampler);
  if (code !== 0 && code !== 5 && code !== 6) throw new Error(`agent run ${name} exited with ${code}`);
  const snapshots = readFileSync(out, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as MetricSnapshot);
  const from = timing.rampSec + timing.warmupSec;
  const window = snapshots.filter((s) => s.seq >= from && s.intervalMs >= 900);
  const summary = localRun(window).summary!;
  const startMs = window[0]!.intervalStart;
  const endMs = window.at(-1)!.intervalStart + window.at(-1)!.intervalMs;
  const first = samples.find((s) => s.at >= startMs) ?? samples[0]!;
  const last = [...samples].reverse().find((s) => s.at <= endMs) ?? samples.at(-1)!;
  const cpuSec = (last.ticks - first.ticks) / CLOCK_TICKS;
  const wallSec = Math.max(0.001, (last.at - first.at) / 1000);
  const broadcastsPerSec = window.reduce((sum, s) => sum + (s.counters.broadcastsReceived ?? 0), 0) / window.length;
  const joins = localRun(snapshots).summary?.script?.["join-ms"];
  return {
    broadcastsPerSec,
    cpuPercent: (cpuSec / wallSec) * 100,
    usPerBroadcast: ((cpuSec / wallSec) * 1e6) / Math.max(1, broadcastsPerSec),
    p50Ms: summary.latency?.broadcast?.p50Ms ?? Number.NaN,
    p99Ms: summary.latency?.broadcast?.p99Ms ?? Number.NaN,
    joinP50Ms: joins?.p50Ms ?? Number.NaN,
    joinP99Ms: joins?.p99Ms ?? Number.NaN,
    saturatedSeconds: localFigures(window).saturatedSeconds,
  };
}

/** Waits for `child` to exit, killing its session after a bound (every run here is far shorter). */
async function exitOf(child: ChildProcess): Promise<number | null> {
  const killer = setTimeout(() => killSession(child), 120_000);
  const code = await new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", resolve),
  );
  clearTimeout(killer);
  // Engine processes (and anything a script left) go with their session.
  killSession(child);
  return code;
}

/** The same bots in one plain Node process. */
async function runPlain(
  server: RoomServer,
  players: number,
  options: ScriptBenchOptions,
  timing: Timing,
): Promise<PathRun> {
  const args = [
    join(here, "plain-bots.mjs"),
    "--bots",
    BOTS,
    "--url",
    `http://127.0.0.1:${server.port}`,
    "--clients",
    String(players),
    "--room-size",
    String(options.roomSize),
    "--hz",
    String(options.hz),
  ];
  args.push(
    "--ramp",
    String(timing.rampSec),
    "--warmup",
    String(timing.warmupSec),
    "--seconds",
    String(timing.measureSec),
  );
  const child = startProcess(args, { stdout: "pipe" });
  let out = "";
  child.stdout!.on("data", (chunk) => (out += String(chunk)));
  const code = await exitOf(child);
  if (code !== 0) throw new Error(`plain-bots.mjs exited with ${code}`);
  return JSON.parse(out.trim().split("\n").pop()!) as PathRun;
}

const median = (values: number[]) => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "-";

type Host = "quiet" | "busy";
/** "plain", or a script run with `--engines N` ("script 2") or the agent's own choice ("script"). */
type Path = string;
const pathOf = (engines: number | undefined): Path => (engines === undefined ? "script" : `script ${engines}`);
const pathLabel = (path: Path) =>
  path === "plain"
    ? "plain Node"
    : path === "script"
      ? "Throng script (engines: the agent's choice)"
      : `Throng script, --engines ${path.slice(7)}`;

/** Runs every step and returns the markdown table with the p99 ratios. */
export async function scriptRows(options: ScriptBenchOptions): Promise<string> {
  const timing: Timing = { rampSec: 2, warmupSec: 3, measureSec: options.quick ? 5 : 10 };
  const server = await startRoomServer(options.roomSize);
  const burners: ChildProcess[] = [];
  const lines: string[] = [];
  const header = [
    "players",
    "host",
    "path",
    "broadcasts/s",
    "CPU",
    "µs CPU per broadcast",
    "p50",
    "p99",
    "p99 of each round",
    "p99 ÷ plain p99",
    "join p50 / p99",
  ];
  lines.push(`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`);
  const paths: Path[] = ["plain", ...options.engines.map(pathOf)];
  try {
    for (const players of options.players) {
      const runs = new Map<string, PathRun[]>();
      const add = (host: Host, path: Path, run: PathRun) =>
        runs.set(`${host}:${path}`, [...(runs.get(`${host}:${path}`) ?? []), run]);
      for (let round = 0; round < options.repeat; round += 1) {
        for (const host of ["quiet", "busy"] as Host[]) {
          // Alternate the order, so no path always meets the host right after another's run or the burners' start.
          for (const path of round % 2 === 0 ? paths : [...paths].reverse()) {
            if (host === "busy")
              burners.push(...startBurners(options.burners, timing.rampSec + timing.warmupSec + timing.measureSec + 8));
            try {
              const name = `script-${players}-${host}-${path.replace(" ", "-")}-${round}`;
              const engineCount = path.startsWith("script ") ? Number(path.slice(7)) : undefined;
              add(
                host,
                path,
                path === "plain"
                  ? await runPlain(server, players, options, timing)
                  : await runThrong(
                      server,
                      players,
                      { ...options, ...(engineCount ? { engineCount } : {}) },
                      timing,
                      name,
                    ),
              );
            } finally {
              stopAll(burners.splice(0));
            }
          }
        }
      }
      for (const host of ["quiet", "busy"] as Host[]) {
        const plainP99 = median((runs.get(`${host}:plain`) ?? []).map((r) => r.p99Ms));
        for (const path of paths) {
          const list = runs.get(`${host}:${path}`) ?? [];
          const m = (pick: (r: PathRun) => number) => median(list.map(pick));
          const extra = path === "plain" ? "" : `; saturated ${fmt(m((r) => r.saturatedSeconds ?? 0))} s`;
          lines.push(
            `| ${fmt(players)} | ${host}${host === "busy" ? ` (${options.burners} busy loops)` : ""} | ${pathLabel(path)} | ${fmt(m((r) => r.broadcastsPerSec))} | ${fmt(
              m((r) => r.cpuPercent),
              1,
            )}% | ${fmt(
              m((r) => r.usPerBroadcast),
              2,
            )} | ${fmt(
              m((r) => r.p50Ms),
              2,
            )} ms | ${fmt(
              m((r) => r.p99Ms),
              2,
            )} ms | ${list.map((r) => fmt(r.p99Ms, 2)).join(", ")}${extra} | ${path === "plain" ? "-" : `${fmt(m((r) => r.p99Ms) / plainP99, 2)}×`} | ${fmt(m((r) => r.joinP50Ms))} / ${fmt(m((r) => r.joinP99Ms))} ms |`,
          );
        }
      }
    }
  } finally {
    stopAll(burners);
    killSession(server.child);
  }
  return `${lines.join("\n")}\n\nScript bench: @colyseus/sdk bots against a Colyseus server on this host (rooms of ${options.roomSize}, ${options.hz} Hz, each move broadcast to the room), ${options.repeat} round(s), medians; busy = ${options.burners} busy-loop process(es) for the measurement's length; nothing pinned (${availableParallelism()} cores).`;
}
