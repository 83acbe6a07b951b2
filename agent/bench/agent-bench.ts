// `npm run bench:agent`: the agent's own benchmark. Target and agent each pinned to one core with taskset,
// load only to 127.0.0.1, every run bounded in clients and seconds. Prints one table; see docs/benchmarks.md.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PlanSpecInput } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { localFigures, localRun } from "../src/metrics/run-summary";
import {
  prepareEchoServer,
  prepareRust,
  runBareNode,
  runBareNodeMove,
  runBareRust,
  runBareRustMove,
  startEchoServer,
  type BareMoveResult,
  type BareMoveRun,
  type BareResult,
} from "./bare/run-bare";
import { scriptRows } from "./script/run-script";
import { runVs, vsToolNames } from "./vs/run-vs";
import { runScaleBench, SCALE_SCENARIOS } from "./c200k";

const agentDir = fileURLToPath(new URL("..", import.meta.url));
const bundle = join(agentDir, "dist", "throng-agent.mjs");
const work = mkdtempSync(join(tmpdir(), "throng-bench-"));
const AGENT_CPU = process.env.BENCH_AGENT_CPU ?? "0";
const TARGET_CPU = process.env.BENCH_TARGET_CPU ?? "1";
/** c200k and ceiling: BENCH_AUTOGROUP_NICE=-10 weighs the agent's and the target's sessions against the host's others (root). */
const AUTOGROUP_NICE = process.env.BENCH_AUTOGROUP_NICE ? Number(process.env.BENCH_AUTOGROUP_NICE) : undefined;
const QUICK = process.argv.includes("--quick");
/** `--vs tsung --vs k6`: the same scenarios on those tools too, with ratios (agent/bench/vs/). */
const VS = vsToolNames(process.argv);
/**
 * `--only s1` (repeatable: s1, s2, s3, s4, script, c200k, ceiling): just those scenarios; without it, S1 to S4. c200k
 * (200,000 clients and a 50,000-client login storm) and ceiling (up to 500,000, until a step falls short) take the whole machine for minutes:
 * only by name.
 */
const ONLY = process.argv.flatMap((arg, i) => (process.argv[i - 1] === "--only" ? [arg.toLowerCase()] : []));
const SMALL_SCENARIOS = ["s1", "s2", "s3", "s4"];
const KNOWN_SCENARIOS = [...SMALL_SCENARIOS, "script", ...SCALE_SCENARIOS];
for (const name of ONLY)
  if (!KNOWN_SCENARIOS.includes(name)) throw new Error(`--only takes ${KNOWN_SCENARIOS.join(", ")}, not "${name}"`);
const runs = (scenario: "s1" | "s2" | "s3" | "s4") => ONLY.length === 0 || ONLY.includes(scenario);
const SCALE = ONLY.filter((name) => (SCALE_SCENARIOS as readonly string[]).includes(name));
const SMALL = ONLY.length === 0 || ONLY.some((name) => SMALL_SCENARIOS.includes(name));
/** The value after `--name`, or undefined. */
const option = (name: string) =>
  process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : undefined;
/**
 * `--only script` (agent/bench/script/): @colyseus/sdk bots as a Throng script and in one plain Node process, quiet
 * and busy. `--players 160,320` the steps (default 160), `--hz` (10), `--room-size` (16), `--burners` busy loops for
 * the busy rows (default one per core), `--engines 2,default` one script row per engine count ("default": the
 * agent's own choice, the default).
 */
const SCRIPT = ONLY.includes("script");
/** `--repeat N`: S2 and each S4 step run N rounds (engine and bare clients alternating) and report medians. */
const REPEAT = process.argv.includes("--repeat")
  ? Math.max(1, Number(process.argv[process.argv.indexOf("--repeat") + 1]))
  : 1;
/**
 * `--node-io`: S1 at 19.5k clients, the saturation step and the S2 engine rows again on Node's sockets
 * (THRONG_IO=node), in the same run, for the native I/O path's ratio.
 */
const NODE_IO = process.argv.includes("--node-io");
type Io = "native" | "node";
const ioLabel = (io: Io) => (io === "node" ? " (Node's sockets)" : "");
/** `--node-target`: the reference target on Node's sockets (THRONG_IO=node), as it was before it had the native path. */
const TARGET_IO: Io = process.argv.includes("--node-target") ? "node" : "native";
/** `--vs-only`: just the comparison, without the Throng table above it. */
const VS_ONLY = VS.length > 0 && process.argv.includes("--vs-only");

interface Target {
  child: ChildProcess;
  wsUrl: string;
  tcpPort: number;
}

/** The target's CPU since the previous call (its /stats endpoint), to tell which side was the limit. */
function targetCpu(target: Target): Promise<number> {
  const url = target.wsUrl.replace("ws://", "http://").replace(/\/ws$/, "/stats");
  // A fresh connection each time: a kept-alive one may be closed by the server between runs.
  return new Promise((resolve) => {
    get(url, { agent: false }, (response) => {
      let body = "";
      response.on("data", (chunk) => (body += String(chunk)));
      response.on("end", () => resolve((JSON.parse(body) as { cpuPercent: number }).cpuPercent));
    }).on("error", () => resolve(Number.NaN));
  });
}

/** Starts the reference target on its own core and waits for its addresses. */
async function startTarget(): Promise<Target> {
  const child = spawn(
    "taskset",
    [
      "-c",
      TARGET_CPU,
      process.execPath,
      bundle,
      "target",
      "--port",
      "0",
      "--tcp-port",
      "0",
      "--framing",
      "len2",
      "--max-clients",
      "19900",
    ],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, THRONG_IO: TARGET_IO },
    },
  );
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      out += String(chunk);
      const ws = /target listening on (\S+)/.exec(out);
      const tcp = /target tcp on [\d.]+:(\d+)/.exec(out);
      if (ws && tcp) resolve({ child, wsUrl: ws[1]!, tcpPort: Number(tcp[1]) });
    });
    child.once("exit", (code) => reject(new Error(`target exited ${code}`)));
  });
}

interface AgentRun {
  snapshots: MetricSnapshot[];
  /**
   * Milliseconds per second the agent process was runnable but waited for its core (/proc/PID/schedstat), from
   * `steadyFromSec` after it started to its last sample: on a shared machine this, not the agent, can be the
   * event-loop stall behind a p99.
   */
  runQueueWaitMsPerSec: number;
}

/** The process's time waiting on a run queue, in ns (field 2 of /proc/PID/schedstat), or undefined once it has gone. */
function runQueueWaitNs(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** Runs one plan on one pinned engine process and returns its per-second snapshots. */
async function runAgent(name: string, plan: PlanSpecInput, steadyFromSec = 0, io: Io = "native"): Promise<AgentRun> {
  const planPath = join(work, `${name}.json`);
  const out = join(work, `${name}.jsonl`);
  writeFileSync(planPath, JSON.stringify(plan));
  // taskset execs node, so the child's pid is the agent's.
  const child = spawn(
    "taskset",
    ["-c", AGENT_CPU, process.execPath, bundle, "run", planPath, "--engines", "1", "--quiet", "--out", out],
    {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, THRONG_IO: io === "node" ? "node" : "native" },
    },
  );
  const startedAt = performance.now();
  const waits: { at: number; ns: number }[] = [];
  const sampler = setInterval(() => {
    const ns = runQueueWaitNs(child.pid!);
    if (ns !== undefined) waits.push({ at: performance.now() - startedAt, ns });
  }, 250);
  const killer = setTimeout(() => child.kill("SIGKILL"), 180_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearInterval(sampler);
  clearTimeout(killer);
  // Exit 5 (an SLO failed) and 6 (incomplete: on a busy machine a schedule can fall behind) still wrote their
  // snapshots, which show it; anything else is a real failure.
  if (code !== 0 && code !== 5 && code !== 6) throw new Error(`agent run ${name} exited with ${code}`);
  const from = waits.find((w) => w.at >= steadyFromSec * 1000);
  const last = waits.at(-1);
  const runQueueWaitMsPerSec =
    from && last && last.at > from.at ? (last.ns - from.ns) / 1e6 / ((last.at - from.at) / 1000) : Number.NaN;
  return {
    snapshots: readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as MetricSnapshot),
    runQueueWaitMsPerSec,
  };
}

/** The seconds after the ramp: what a steady-state figure is taken from (the last, partial second dropped). */
function steady(snapshots: MetricSnapshot[], fromSec: number): MetricSnapshot[] {
  return snapshots.filter((s) => s.seq >= fromSec && s.intervalMs >= 900);
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

interface Row {
  scenario: string;
  cells: string[];
}
const rows: Row[] = [];
/** RSS at the 1k-client run, so memory per client is the slope, not the runtime's fixed ~70 MiB. */
let baseline: { clients: number; rss: number } | undefined;

function pingPlan(
  url: string,
  clients: number,
  intervalMs: number,
  durationSec: number,
  rampUpSec: number,
): PlanSpecInput {
  return {
    name: `S1 ${clients}`,
    target: { protocol: "websocket", url },
    scenario: { kind: "ping-pong", intervalMs, messageBytes: 164, responseBytes: 71 },
    load: { clients, durationSec, rampUpSec },
  };
}

async function s1(
  target: Target,
  clients: number,
  intervalMs: number,
  io: Io = "native",
): Promise<{ achieved: number; cpu: number }> {
  await targetCpu(target);
  const rampUpSec = Math.max(1, Math.ceil(clients / 4_000));
  const durationSec = rampUpSec + (QUICK ? 6 : 10);
  const { snapshots, runQueueWaitMsPerSec } = await runAgent(
    `s1-${clients}-${intervalMs}-${io}`,
    pingPlan(target.wsUrl, clients, intervalMs, durationSec, rampUpSec),
    rampUpSec + 2,
    io,
  );
  const window = steady(snapshots, rampUpSec + 2);
  const summary = localRun(window).summary!;
  const achieved = mean(window.map((s) => s.counters.messagesReceived));
  const intended = (clients * 1000) / intervalMs;
  const cpu = mean(window.map((s) => s.health.cpuPercent));
  const rss = Math.max(...window.map((s) => s.health.rssBytes));
  const connected = Math.max(...snapshots.map((s) => s.counters.connectionsOpen));
  const failed = localRun(snapshots).summary?.connectionsFailed ?? 0;
  rows.push({
    scenario: `S1 ping ${intervalMs} ms${ioLabel(io)}`,
    cells: [
      fmt(clients),
      `${fmt(connected)}${failed ? ` (${failed} failed)` : ""}`,
      `${fmt(achieved)} / ${fmt(intended)} (${fmt((100 * achieved) / intended, 1)}%)`,
      `${fmt(cpu, 1)}%`,
      baseline && clients > baseline.clients
        ? `${fmt((rss - baseline.rss) / 1048576 / ((clients - baseline.clients) / 1000), 2)} MiB (RSS ${fmt(rss / 1048576)} MiB)`
        : `RSS ${fmt(rss / 1048576)} MiB`,
      `${summary.rttP50Ms ?? "-"} / ${summary.rttP99Ms ?? "-"} ms`,
      `corrected p99 ${summary.latency?.rttCorrected?.p99Ms ?? "-"} ms; ${fmt(((cpu / 100) * 1e6) / Math.max(1, achieved), 1)} µs agent CPU per ping-pong; agent saturated ${localFigures(window).saturatedSeconds} s; agent waited for its core ${fmt(runQueueWaitMsPerSec)} ms/s; target CPU ${fmt(await targetCpu(target), 1)}% (whole run)`,
    ],
  });
  if (intervalMs === 1_000 && !baseline && io === "native") baseline = { clients, rss };
  return { achieved, cpu };
}

interface EchoRun {
  echoes: number;
  cpu: number;
  usPerEcho: number;
  /** RTT p50 / p99 (the engine's own histograms; the bare clients keep none). */
  latency: string;
  note: string;
}

function echoPlan(
  protocol: "websocket" | "tcp",
  where: { wsUrl: string; tcpPort: number },
  durationSec: number,
): PlanSpecInput {
  return {
    name: `S2 ${protocol}`,
    target:
      protocol === "tcp"
        ? { protocol, host: "127.0.0.1", port: where.tcpPort, framing: { kind: "length-prefix", headerBytes: 2 } }
        : { protocol, url: where.wsUrl, frames: "binary" },
    scenario: { kind: "echo-flood", messageBytes: 8, maxInFlight: 1 },
    load: { clients: 100, durationSec, rampUpSec: 0 },
  };
}

async function echoRun(name: string, plan: PlanSpecInput, io: Io): Promise<Omit<EchoRun, "note">> {
  const window = steady((await runAgent(name, plan, 0, io)).snapshots, 2);
  const echoes = mean(window.map((s) => s.counters.messagesReceived));
  const cpu = mean(window.map((s) => s.health.cpuPercent));
  const summary = localRun(window).summary!;
  const latency = `${summary.rttP50Ms} / ${summary.rttP99Ms} ms`;
  return { echoes, cpu, usPerEcho: ((cpu / 100) * 1e6) / Math.max(1, echoes), latency };
}

async function s2Engine(
  target: Target,
  protocol: "websocket" | "tcp",
  durationSec: number,
  io: Io = "native",
): Promise<EchoRun> {
  await targetCpu(target);
  const run = await echoRun(`s2-${protocol}-${io}`, echoPlan(protocol, target, durationSec), io);
  return { ...run, note: `target CPU ${fmt(await targetCpu(target), 1)}%` };
}

/**
 * S2 over TCP against the bare C echo server instead of the reference target: the target's core is full in the
 * rows against it, so the agent waits for it; here the agent is the limit and its CPU per echo is its own.
 */
async function s2AgentLimited(binary: string, durationSec: number, io: Io): Promise<EchoRun> {
  const server = await startEchoServer(binary, TARGET_CPU);
  try {
    const before = { cpu: server.cpuSeconds(), at: performance.now() };
    const run = await echoRun(
      `s2-tcp-bare-server-${io}`,
      echoPlan("tcp", { wsUrl: "", tcpPort: server.port }, durationSec),
      io,
    );
    const serverCpu = ((server.cpuSeconds() - before.cpu) / ((performance.now() - before.at) / 1000)) * 100;
    return { ...run, note: `bare C echo server CPU ${fmt(serverCpu, 1)}% (whole run)` };
  } finally {
    server.child.kill("SIGTERM");
  }
}

async function s2Bare(
  target: Target,
  protocol: "websocket" | "tcp",
  durationSec: number,
  run: (options: Parameters<typeof runBareNode>[0]) => BareResult,
): Promise<EchoRun> {
  await targetCpu(target);
  const result = run({
    mode: protocol === "tcp" ? "tcp" : "ws",
    port: protocol === "tcp" ? target.tcpPort : Number(new URL(target.wsUrl).port),
    seconds: durationSec - 2,
    cpu: AGENT_CPU,
  });
  return {
    echoes: result.echoesPerSec,
    cpu: result.cpuPercent,
    usPerEcho: result.usPerEcho,
    latency: "-",
    note: `target CPU ${fmt(await targetCpu(target), 1)}%`,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * S2 over one protocol: the engine with every measurement on, then the bare Node and bare Rust clients
 * (agent/bench/bare/) on the same core against the same target, alternating round by round; medians of the rounds.
 */
async function s2(target: Target, protocol: "websocket" | "tcp", rustMissing: string | undefined) {
  const durationSec = QUICK ? 8 : 20;
  const runs: Record<"engine" | "engineNodeIo" | "node" | "rust", EchoRun[]> = {
    engine: [],
    engineNodeIo: [],
    node: [],
    rust: [],
  };
  for (let round = 0; round < REPEAT; round += 1) {
    runs.engine.push(await s2Engine(target, protocol, durationSec));
    if (NODE_IO) runs.engineNodeIo.push(await s2Engine(target, protocol, durationSec, "node"));
    runs.node.push(await s2Bare(target, protocol, durationSec, runBareNode));
    if (!rustMissing) runs.rust.push(await s2Bare(target, protocol, durationSec, runBareRust));
  }
  const name = protocol === "tcp" ? "TCP len2" : "WebSocket";
  const us = (list: EchoRun[]) => median(list.map((r) => r.usPerEcho));
  const spread = (list: EchoRun[]) =>
    list.length > 1 ? ` (rounds ${list.map((r) => fmt(r.usPerEcho, 2)).join(", ")})` : "";
  const row = (label: string, list: EchoRun[], extra: string) =>
    rows.push({
      scenario: `S2 echo ${name}${label}`,
      cells: [
        "100",
        "100",
        `${fmt(median(list.map((r) => r.echoes)))} echoes/s`,
        `${fmt(median(list.map((r) => r.cpu)), 1)}%`,
        "-",
        list[list.length - 1]!.latency,
        `${fmt(us(list), 2)} µs agent CPU per echo${spread(list)}${extra}; ${list[list.length - 1]!.note}`,
      ],
    });
  const ratios = [
    ...(runs.engineNodeIo.length
      ? [`${fmt(us(runs.engine) / us(runs.engineNodeIo), 2)}× the engine on Node's sockets`]
      : []),
    `${fmt(us(runs.engine) / us(runs.node), 2)}× bare Node`,
    ...(runs.rust.length ? [`${fmt(us(runs.engine) / us(runs.rust), 2)}× bare Rust`] : []),
  ];
  row("", runs.engine, `, ${ratios.join(", ")}`);
  if (runs.engineNodeIo.length) row(ioLabel("node"), runs.engineNodeIo, "");
  if (protocol === "tcp") {
    // The same rounds again against a target that is not the limit.
    const binary = prepareEchoServer();
    const limited: Record<Io, EchoRun[]> = { native: [], node: [] };
    for (let round = 0; round < REPEAT; round += 1) {
      limited.native.push(await s2AgentLimited(binary, durationSec, "native"));
      if (NODE_IO) limited.node.push(await s2AgentLimited(binary, durationSec, "node"));
    }
    const versusNode = limited.node.length
      ? `, ${fmt(us(limited.native) / us(limited.node), 2)}× the engine on Node's sockets`
      : "";
    row(
      " vs bare C echo server",
      limited.native,
      `${versusNode}, ${fmt(us(limited.native) / us(runs.rust.length ? runs.rust : runs.node), 2)}× bare ${runs.rust.length ? "Rust" : "Node"} (against the target)`,
    );
    if (limited.node.length) row(` vs bare C echo server${ioLabel("node")}`, limited.node, "");
  }
  row(" (bare Node)", runs.node, "");
  if (runs.rust.length) row(" (bare Rust)", runs.rust, "");
  else
    rows.push({ scenario: `S2 echo ${name} (bare Rust)`, cells: ["100", "-", "-", "-", "-", "-", rustMissing ?? "-"] });
}

async function s3(target: Target) {
  await targetCpu(target);
  const clients = 10_000;
  const { snapshots } = await runAgent("s3", {
    name: "S3",
    target: { protocol: "websocket", url: target.wsUrl },
    scenario: { kind: "login-storm" },
    load: { clients, durationSec: 5, rampUpSec: 0 },
  });
  const summary = localRun(snapshots).summary!;
  const opens = snapshots.map((s) => s.counters.connectionsOpened);
  const busySeconds = opens.filter((n) => n > 0).length;
  const connected = summary.connectionsOpened ?? 0;
  const cpu = snapshots[0]?.health.cpuPercent ?? 0;
  // The agent's CPU over the seconds it was opening connections, per connection: what one core could open.
  const busy = snapshots.filter((s) => s.counters.connectionsOpened > 0);
  const cpuUsPerConnection =
    busy.reduce((sum, s) => sum + (s.health.cpuPercent / 100) * s.intervalMs * 1000, 0) / Math.max(1, connected);
  rows.push({
    scenario: "S3 login storm WS",
    cells: [
      fmt(clients),
      fmt(connected),
      `${fmt(Math.max(...opens))} conn/s peak second; all in ${busySeconds} s`,
      `${fmt(cpu, 1)}% (1st s)`,
      "-",
      `connect ${summary.latency?.connect?.p50Ms} / ${summary.latency?.connect?.p99Ms} ms`,
      `failures ${summary.connectionsFailed} ${JSON.stringify(summary.errorsByKind ?? {})}; ${fmt(cpuUsPerConnection, 1)} µs agent CPU per connection (${fmt(1e6 / Math.max(1, cpuUsPerConnection))} conn/s per agent core); target CPU ${fmt(await targetCpu(target), 1)}%`,
    ],
  });
}

const S4_ROOM_SIZE = 20;
const S4_HZ = 20;

/**
 * S4's plan: the reference target's rooms driven the declarative way, as a plan for another server would be: the join
 * as session steps, the update as a template, broadcasts read by a rule whose json extractors take sender, seq and
 * the update's own send time from the relayed update.
 */
function movementPlan(url: string, players: number, durationSec: number, rampUpSec: number): PlanSpecInput {
  return {
    name: `S4 ${players}`,
    target: { protocol: "websocket", url },
    scenario: {
      kind: "movement-sync",
      roomSize: S4_ROOM_SIZE,
      updateHz: S4_HZ,
      session: [
        { kind: "send", message: { format: "json", body: '{"type":"join","room":{{room}},"client":{{client}}}' } },
        { kind: "expect", reply: { json: { field: "type", equals: "joined" } } },
      ],
      update: {
        format: "json",
        body: '{"type":"move","room":{{room}},"client":{{client}},"seq":{{seq}},"t":{{sentAtUs}},"x":{{x}},"y":{{y}}}',
      },
      broadcast: {
        filter: { json: { field: "type", equals: "move" } },
        sender: { json: "client" },
        seq: { json: "seq" },
        sentAtUs: { json: "t" },
      },
    },
    load: { clients: players, durationSec, rampUpSec },
  };
}

interface MoveRun {
  sentPerSec: number;
  receivedPerSec: number;
  cpu: number;
  usPerBroadcast: number;
  /** The engine's only: latency, reach and how many players got into their rooms. */
  latency?: string;
  reach?: number;
  connected?: number;
  targetCpu: number;
}

async function s4Engine(target: Target, players: number): Promise<MoveRun> {
  await targetCpu(target);
  const rampUpSec = Math.max(1, Math.ceil(players / 2_000));
  const durationSec = rampUpSec + (QUICK ? 6 : 8);
  const { snapshots } = await runAgent(
    `s4-${players}`,
    movementPlan(target.wsUrl, players, durationSec, rampUpSec),
    rampUpSec + 2,
  );
  const window = steady(snapshots, rampUpSec + 2);
  const summary = localRun(window).summary!;
  const receivedPerSec = mean(window.map((s) => s.counters.broadcastsReceived ?? 0));
  const cpu = mean(window.map((s) => s.health.cpuPercent));
  return {
    sentPerSec: mean(window.map((s) => s.counters.messagesSent)),
    receivedPerSec,
    cpu,
    usPerBroadcast: ((cpu / 100) * 1e6) / Math.max(1, receivedPerSec),
    latency: `${summary.latency?.broadcast?.p50Ms ?? "-"} / ${summary.latency?.broadcast?.p99Ms ?? "-"} ms`,
    reach: summary.broadcastReach ?? 0,
    connected: Math.max(...snapshots.map((s) => s.counters.connectionsOpen)),
    targetCpu: await targetCpu(target),
  };
}

async function s4Bare(
  target: Target,
  players: number,
  run: (options: BareMoveRun) => BareMoveResult,
): Promise<MoveRun> {
  await targetCpu(target);
  const result = run({
    port: Number(new URL(target.wsUrl).port),
    players,
    roomSize: S4_ROOM_SIZE,
    hz: S4_HZ,
    seconds: QUICK ? 5 : 6,
    cpu: AGENT_CPU,
  });
  return {
    sentPerSec: result.sentPerSec,
    receivedPerSec: result.receivedPerSec,
    cpu: result.cpuPercent,
    usPerBroadcast: result.usPerBroadcast,
    targetCpu: await targetCpu(target),
  };
}

/**
 * S4 movement-sync: rooms of 20 players, 20 updates/s each, over WebSocket; the players step up until the agent's
 * core is full (or the room's broadcasts fall below 90% reach, or the target's core is full: beyond that the target,
 * not the agent, is measured). Each step: the engine, then the bare Node and bare Rust clients doing the same (join,
 * update, count the broadcasts) on the same core against the same target, alternating round by round with --repeat.
 */
async function s4Rows(target: Target) {
  const rustMissing = prepareRust();
  const steps = QUICK ? [200, 500] : [200, 300, 400, 500, 700, 1_000, 2_000];
  for (const players of steps) {
    const runs: Record<"engine" | "node" | "rust", MoveRun[]> = { engine: [], node: [], rust: [] };
    for (let round = 0; round < REPEAT; round += 1) {
      runs.engine.push(await s4Engine(target, players));
      runs.node.push(await s4Bare(target, players, runBareNodeMove));
      if (!rustMissing) runs.rust.push(await s4Bare(target, players, runBareRustMove));
    }
    const us = (list: MoveRun[]) => median(list.map((r) => r.usPerBroadcast));
    const spread = (list: MoveRun[]) =>
      list.length > 1 ? ` (rounds ${list.map((r) => fmt(r.usPerBroadcast, 2)).join(", ")})` : "";
    const row = (label: string, list: MoveRun[], extra: string) => {
      const last = list[list.length - 1]!;
      const received = median(list.map((r) => r.receivedPerSec));
      const cpu = median(list.map((r) => r.cpu));
      rows.push({
        scenario: `S4 movement ${S4_HZ} Hz, rooms of ${S4_ROOM_SIZE}${label}`,
        cells: [
          fmt(players),
          last.connected !== undefined ? fmt(last.connected) : "-",
          `${fmt(median(list.map((r) => r.sentPerSec)))} updates/s sent, ${fmt(received)} broadcasts/s received (${fmt(received / Math.max(0.01, cpu / 100))} per agent core)`,
          `${fmt(cpu, 1)}%`,
          "-",
          last.latency ?? "-",
          `${fmt(us(list), 2)} µs agent CPU per received broadcast${spread(list)}${extra}; target CPU ${fmt(last.targetCpu, 1)}%`,
        ],
      });
    };
    const ratios = [
      `${fmt(us(runs.engine) / us(runs.node), 2)}× bare Node`,
      ...(runs.rust.length ? [`${fmt(us(runs.engine) / us(runs.rust), 2)}× bare Rust`] : []),
    ];
    const reach = median(runs.engine.map((r) => r.reach ?? 0));
    row("", runs.engine, `, reach ${fmt(reach * 100, 1)}%, ${ratios.join(", ")}`);
    row(" (bare Node)", runs.node, "");
    if (runs.rust.length) row(" (bare Rust)", runs.rust, "");
    else
      rows.push({
        scenario: `S4 movement ${S4_HZ} Hz, rooms of ${S4_ROOM_SIZE} (bare Rust)`,
        cells: [fmt(players), "-", "-", "-", "-", "-", rustMissing ?? "-"],
      });
    const engineCpu = median(runs.engine.map((r) => r.cpu));
    const targetFull = median(runs.engine.map((r) => r.targetCpu)) >= 95;
    if (engineCpu >= 95 || reach < 0.9 || targetFull) break;
  }
}

/** The Throng table: S1 ladder and saturation, S2 over WebSocket and TCP (with the bare clients), S3, S4 (or those `--only` names). */
async function agentRows(target: Target) {
  if (runs("s1")) await s1Rows(target);
  if (runs("s2")) {
    const rustMissing = prepareRust();
    await s2(target, "websocket", rustMissing);
    await s2(target, "tcp", rustMissing);
  }
  if (runs("s3")) await s3(target);
  if (runs("s4")) await s4Rows(target);
}

/** S1: the client ladder at one ping a second, then faster pings until the agent's core saturates. */
async function s1Rows(target: Target) {
  for (const clients of [1_000, 5_000, 10_000, 19_500]) await s1(target, clients, 1_000);
  if (NODE_IO) await s1(target, 19_500, 1_000, "node");
  // Saturation: 19.5k clients pinging faster until the agent's core is full or the rate falls behind.
  let best = { perCore: 0, rate: 0, intervalMs: 0 };
  for (const intervalMs of [500, 250, 150, 100]) {
    const { achieved, cpu } = await s1(target, 19_500, intervalMs);
    const perCore = achieved / Math.max(0.01, cpu / 100);
    if (achieved > best.rate) best = { perCore, rate: achieved, intervalMs };
    if (cpu >= 95 || achieved < 0.9 * ((19_500 * 1000) / intervalMs)) break;
  }
  rows.push({
    scenario: "S1 saturation",
    cells: [
      "19,500",
      "-",
      `${fmt(best.rate)} pings/s at ${best.intervalMs} ms`,
      "-",
      "-",
      "-",
      `${fmt(best.perCore)} pings/s per agent core`,
    ],
  });
  if (NODE_IO) {
    const { achieved, cpu } = await s1(target, 19_500, best.intervalMs, "node");
    const perCore = achieved / Math.max(0.01, cpu / 100);
    rows.push({
      scenario: `S1 saturation${ioLabel("node")}`,
      cells: [
        "19,500",
        "-",
        `${fmt(achieved)} pings/s at ${best.intervalMs} ms`,
        "-",
        "-",
        "-",
        `${fmt(perCore)} pings/s per agent core; native ${fmt(best.perCore / Math.max(1, perCore), 2)}× this`,
      ],
    });
  }
}

/** The script bench's table (agent/bench/script/run-script.ts), from the command line's options. */
function scriptTable(): Promise<string> {
  const number = (name: string, fallback: number) => {
    const value = Number(option(name) ?? fallback);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`--${name} takes a whole number of 1 or more, not "${option(name)}"`);
    return value;
  };
  return scriptRows({
    bundle,
    work,
    players: (option("players") ?? "160").split(",").map((n) => Number(n)),
    roomSize: number("room-size", 16),
    hz: number("hz", 10),
    repeat: REPEAT,
    quick: QUICK,
    burners: option("burners") === "0" ? 0 : number("burners", cpus().length),
    engines: (option("engines") ?? "default")
      .split(",")
      .map((value) => (value === "default" ? undefined : Number(value))),
  });
}

async function main() {
  // Pinning cannot help when the machine is shared: the load average says how much it was.
  const loadBefore = loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");
  execFileSync(process.execPath, [join(agentDir, "build.mjs")], { stdio: "ignore" });
  if (SCALE.length) {
    const table = await runScaleBench(SCALE, {
      bundle,
      work,
      agentCpu: AGENT_CPU,
      targetCpu: TARGET_CPU,
      quick: QUICK,
      ...(AUTOGROUP_NICE !== undefined ? { autogroupNice: AUTOGROUP_NICE } : {}),
    });
    const weighed =
      AUTOGROUP_NICE !== undefined
        ? `, each in a session of its own weighed ${AUTOGROUP_NICE} (BENCH_AUTOGROUP_NICE)`
        : ", each in a session of its own";
    console.log(
      `${SCALE.join(", ")}: agent (no flags but --out) on CPU ${AGENT_CPU}, target (--processes) on CPU ${TARGET_CPU}${weighed}; load average before ${loadBefore}\n\n${table}\n`,
    );
    if (!SMALL && !SCRIPT && VS.length === 0) return;
  }
  if (SCRIPT && !SMALL && VS.length === 0) {
    console.log(await scriptTable());
    console.log(
      `load average before ${loadBefore}, after ${loadavg()
        .map((n) => n.toFixed(2))
        .join(" ")}`,
    );
    return;
  }
  const target = await startTarget();
  let vsTable: string | undefined;
  try {
    if (!VS_ONLY) await agentRows(target);
    if (SCRIPT) console.log(`${await scriptTable()}\n`);
    if (VS.length) vsTable = await runVs(VS, { target, bundle, cpu: AGENT_CPU, quick: QUICK });
  } finally {
    target.child.kill("SIGTERM");
  }
  const header = [
    "scenario",
    "clients",
    "connected",
    "achieved vs intended msg/s",
    "agent CPU",
    "mem / 1k clients",
    "p50 / p99",
    "notes",
  ];
  const table = [header, ...rows.map((row) => [row.scenario, ...row.cells])];
  if (!VS_ONLY) console.log(`| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
  for (const line of table.slice(1)) console.log(`| ${line.join(" | ")} |`);
  console.log(
    `\nEngine rows run on the native I/O path (THRONG_IO=native: a missing addon fails the run); rows marked "Node's sockets" on THRONG_IO=node. The reference target: THRONG_IO=${TARGET_IO}.`,
  );
  console.log(
    `${cpus().length} cores (${cpus()[0]?.model ?? "?"}), agent on CPU ${AGENT_CPU}, target on CPU ${TARGET_CPU}; load average before ${loadBefore}, after ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  if (vsTable)
    console.log(
      `\n${vsTable}\n\nAgainst ${VS.join(", ")}: every tool on CPU ${AGENT_CPU}, counted by the target's /stats, CPU and RSS of its whole process tree from /proc.`,
    );
}

await main();
