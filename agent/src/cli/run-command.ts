import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { dirname, resolve } from "node:path";
import { availableParallelism, hostname } from "node:os";
import type { RunAssignment } from "@throng/protocol/agent";
import type { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { enginesFor, runOnEngines, SCRIPT_CLIENTS_PER_ENGINE } from "../engine/engines";
import { createSearchFeed } from "../engine/search-feed";
import { createLocalSearch, searchVerdictText } from "./local-search";
import { openFileLimit } from "../metrics/health";
import { resolveWatchedProcess } from "../metrics/process-watch";
import { createServerTimeline, type ServerTimeline } from "../metrics/server-timeline";
import { summariseServerWatch } from "@throng/protocol/server-watch";
import { checkSlos, summariseRun, summariseSteps } from "../metrics/run-summary";
import { pointOfSnapshot, protocolSummary } from "../metrics/series-point";
import { judgeRun, type SearchEvidence } from "@throng/protocol/run-verdict";
import { searchAnswer, steadySeconds, type JudgedStep } from "@throng/protocol/capacity-search";
import type { RunVerdict } from "@throng/protocol/report";
import { bindsOwnPorts } from "../transports/create-transport";
import { ioPathNote } from "../transports/native-io";
import { ExitCode } from "./exit-codes";
import { readPlanFile } from "@throng/wire/plan-reader";
import { progressLine, progressTableRows, serverSummaryText, stepsText, summaryText, verdictText } from "./progress";
import { scriptSummaryText } from "./script-summary";
import { NO_SCRIPT_STORE, scriptRefusal } from "../scripts/script-permission";
import { shutdownSignal } from "./signals";

export interface RunArgs {
  planPath: string;
  out?: string;
  /** Engine processes; default one per core. */
  engines?: number;
  sourceAddresses?: string[];
  quiet?: boolean;
  /** The server under test, on this host: its CPU, memory and the host's packets join each second. */
  watchPid?: number;
  watchName?: string;
  /** `--allow-scripts`: run a plan whose scenario is a script. */
  allowScripts?: boolean;
}

/** The server to watch, or undefined when none was asked for; throws a usage error naming the flag. */
export function serverTimelineFor(args: Pick<RunArgs, "watchPid" | "watchName">): ServerTimeline | undefined {
  if (args.watchPid === undefined && args.watchName === undefined) return undefined;
  const watched = resolveWatchedProcess({ pid: args.watchPid, name: args.watchName }, { pid: "--watch-pid", name: "--watch-name" });
  if ("error" in watched) throw new WatchTargetError(watched.error);
  return createServerTimeline(watched.pid);
}

/** The process to watch is missing or ambiguous: a usage error (exit 2), raised before any load. */
export class WatchTargetError extends Error {}

/** Descriptors a process needs besides its connections (stdio, the event loop, files). */
const FD_HEADROOM = 64;

/** Connections one local address can open to one target address and port (Linux default range 32768–60999, less headroom). */
const PORTS_PER_SOURCE_ADDRESS = 25_000;
/**
 * Above this many clients to a loopback target the engine binds its own local ports: past ~14k connections from one
 * address the kernel's connect() port search was 40% of the agent's CPU (docs/benchmarks.md, "Agent"); 10k clients
 * still ran at 100% of rate with kernel-chosen ports, and small runs keep the kernel's choice.
 */
const KERNEL_PORTS_UP_TO = 10_000;

/** The target's host, to tell whether it is on loopback. */
function targetHost(plan: PlanSpec): string {
  return plan.target.protocol === "websocket" ? new URL(plan.target.url).hostname : plan.target.host;
}

/**
 * For a loopback target with more than KERNEL_PORTS_UP_TO clients, connect from 127.0.0.2, 127.0.0.3, … (all of
 * 127.0.0.0/8 is loopback on Linux), one address per PORTS_PER_SOURCE_ADDRESS clients; given source addresses make
 * the engine choose its own local ports (transports/local-ports.ts). UDP: 127.0.0.1, … only past one address's
 * ports. Undefined when not needed or given.
 */
export function loopbackSourceAddresses(plan: PlanSpec): string[] | undefined {
  if (plan.target.sourceAddresses || !targetHost(plan).startsWith("127.")) return undefined;
  const needed = Math.ceil(plan.load.clients / PORTS_PER_SOURCE_ADDRESS);
  // UDP binds its own sockets (no connect-time port search): more addresses only past one address's ports.
  const ownPorts = !bindsOwnPorts(plan.target) && plan.load.clients > KERNEL_PORTS_UP_TO;
  if (!ownPorts) return needed > 1 ? Array.from({ length: needed }, (_, i) => `127.0.0.${i + 1}`) : undefined;
  // Not 127.0.0.1: its ports in TIME_WAIT from kernel-chosen connections (ours from a smaller run a minute ago,
  // or any other process's) lack SO_REUSEADDR and refuse a bind for 60 s; 127.0.0.2 and up are ours alone.
  return Array.from({ length: needed }, (_, i) => `127.0.0.${i + 2}`);
}

/** A warning when the plan needs more sockets per process than the open-file limit allows. */
export function fdWarning(clientsPerEngine: number, limit: number | undefined): string | undefined {
  if (limit === undefined || clientsPerEngine + FD_HEADROOM <= limit) return undefined;
  return `warning: each engine process opens up to ${clientsPerEngine} connections but the open-file limit is ${limit}; connections past it fail with cause "limit". Use more engines (--engines) or raise the limit (ulimit -n).`;
}

/** `throng-agent run plan.yaml`: runs a plan standalone; exits 0 when every SLO passed, 5 when one failed. */
export async function runCommand(args: RunArgs): Promise<ExitCode> {
  const plan = withScriptPath(await readPlanFile(args.planPath), args.planPath);
  const byHash = plan.scenario.kind === "script" && "sha256" in plan.scenario.script;
  const scriptRefused = byHash ? NO_SCRIPT_STORE : await scriptRefusal(plan.scenario, args.allowScripts ? { any: true } : undefined);
  if (scriptRefused) {
    console.error(`error: ${scriptRefused}`);
    return ExitCode.usage;
  }
  const server = serverTimelineFor(args);
  const engines = Math.max(1, args.engines ?? availableParallelism());
  const shardEngines = enginesFor(plan.scenario, plan.load.clients, engines, args.engines !== undefined);
  const warning = fdWarning(Math.ceil(plan.load.clients / shardEngines), openFileLimit());
  if (warning) console.error(warning);
  const sourceAddresses = args.sourceAddresses ?? loopbackSourceAddresses(plan);
  if (sourceAddresses && !args.sourceAddresses) console.error(`note: ${plan.load.clients} clients to a loopback target: connecting from ${sourceAddresses.join(", ")} with the engine's own local ports`);
  const assignment: RunAssignment = { runId: randomUUID(), shardIndex: 0, shardCount: 1, clients: plan.load.clients, plan, startAt: Date.now() + 200 };
  const out = args.out ? createWriteStream(args.out) : undefined;
  const snapshots: MetricSnapshot[] = [];
  const table = process.stdout.isTTY === true;
  const shutdown = shutdownSignal(() => process.exit(ExitCode.failure));
  // An automatic capacity search ends the run once it has its answer; a signal still stops it too.
  const searchEnd = new AbortController();
  const searchFeed = createSearchFeed();
  const search = createLocalSearch({ plan, feed: searchFeed, onEnd: () => searchEnd.abort(), log: (line) => console.log(line) });
  const scriptNote = shardEngines < engines ? ` (a script's clients share an engine up to ${SCRIPT_CLIENTS_PER_ENGINE}; --engines N to choose)` : "";
  console.log(`running "${plan.name}": ${plan.load.clients} clients, ${plan.load.durationSec} s, ${plan.scenario.kind} over ${plan.target.protocol}, ${shardEngines} engine(s)${scriptNote}`);
  if (plan.target.protocol !== "udp") console.error(`note: ${ioPathNote()}`);
  try {
    await runOnEngines(assignment, {
      engines,
      enginesChosen: args.engines !== undefined,
      startWhenReady: true,
      signal: AbortSignal.any([shutdown.signal, searchEnd.signal]),
      searchFeed,
      ...(sourceAddresses ? { sourceAddresses } : {}),
      ...(args.allowScripts ? { scripts: { permission: { any: true } } } : {}),
      onStart: () => server?.start(),
      onSnapshot(load) {
        snapshots.push(load);
        search?.onSnapshot(load);
        const second = server ? server.join(load) : load;
        out?.write(`${JSON.stringify(second)}\n`);
        if (args.quiet) return;
        if (table) for (const line of progressTableRows(second, snapshots.length - 1, server !== undefined)) console.log(line);
        else console.log(progressLine(second));
      },
    });
  } finally {
    shutdown.dispose();
    if (out) await new Promise<void>((resolve) => out.end(resolve));
  }
  const summary = summariseRun(snapshots);
  const verdict = standaloneVerdict(plan, snapshots, summary, assignment.startAt, searchEnd.signal.aborted, search ? searchEstimate(search.judged()) : fixedStepEstimate(plan, snapshots));
  const steps = stepsText(summariseSteps(snapshots));
  if (steps) console.log(steps);
  if (search) console.log(searchVerdictText(search.judged()));
  console.log(summaryText(summary, verdict.slos));
  const scriptLines = scriptSummaryText(snapshots);
  if (scriptLines) console.log(scriptLines);
  if (server) console.log(serverSummaryText(server.pid, summariseServerWatch(server.samples()), server.endedAfterSeq()));
  console.log(verdictText(verdict));
  return exitCodeForVerdict(verdict);
}

/** A script given by path is found relative to the plan file, as the plan's author sees it. */
export function withScriptPath(plan: PlanSpec, planPath: string): PlanSpec {
  const { scenario } = plan;
  if (scenario.kind !== "script" || !("path" in scenario.script)) return plan;
  return { ...plan, scenario: { ...scenario, script: { path: resolve(dirname(planPath), scenario.script.path) } } };
}

/** The same verdict the control plane gives (@throng/protocol/run-verdict), from this run's own seconds. */
function standaloneVerdict(
  plan: PlanSpec, snapshots: readonly MetricSnapshot[], summary: ReturnType<typeof summariseRun>, startAt: number, searchEnded: boolean,
  capacity: Parameters<typeof judgeRun>[0]["capacity"],
): RunVerdict {
  const seconds = snapshots.map(pointOfSnapshot);
  const last = seconds[seconds.length - 1];
  return judgeRun({
    spec: plan, ended: snapshots.length ? "finished" : "failed", problems: snapshots.length ? [] : ["no second was measured"],
    summary: snapshots.length ? protocolSummary(summary, snapshots) : null, seconds, startSecond: Math.floor(startAt / 1000),
    ...(searchEnded && last ? { endedEarlyAtSecond: last.t + 1 } : {}),
    agentHealth: snapshots.map((s) => ({
      t: Math.floor(s.intervalStart / 1000), agentId: `on ${hostname()}`, eventLoopP99Ms: s.health.eventLoopP99Ms,
      ...(s.health.stealPercent !== undefined ? { stealPercent: s.health.stealPercent } : {}),
    })),
    ...(capacity !== undefined ? { capacity } : {}),
  });
}

/** What the standalone search's steps support (searchAnswer, as the control plane reads them). */
export function searchEstimate(judged: readonly JudgedStep[]): SearchEvidence {
  const answer = searchAnswer(judged);
  const problems = answer.notHeldAgain.length ? [`the server did not recover at ${answer.lastHeld!.clients} clients, the last level that held: the estimate is not valid`] : [];
  const steps = judged.map((s, step) => ({ step, clients: s.clients, held: s.held }));
  return { valid: answer.held !== null, clients: answer.held?.clients ?? null, problems, noLevelHeld: judged.length > 0 && answer.lastHeld === null, steps };
}

/**
 * A fixed step-up run's estimate: the largest step whose SLOs held over its steady seconds (those still moving to
 * the level left out, as the control plane does) below the first step that broke; undefined for any other plan (judged by its SLOs).
 */
export function fixedStepEstimate(plan: PlanSpec, snapshots: readonly MetricSnapshot[]): SearchEvidence | undefined {
  if (plan.load.shape?.kind !== "step-up" || plan.load.shape.mode === "auto") return undefined;
  const bySteps = new Map<number, MetricSnapshot[]>();
  for (const snapshot of snapshots) if (snapshot.step !== undefined) bySteps.set(snapshot.step, [...(bySteps.get(snapshot.step) ?? []), snapshot]);
  let clients: number | null = null;
  let broken = false;
  const steps: NonNullable<SearchEvidence["steps"]>[number][] = [];
  for (const [step, seconds] of [...bySteps.entries()].sort(([a], [b]) => a - b)) {
    const hold = steadySeconds(seconds, (s) => ({ second: s.seq, clients: s.clients, connectionsOpen: s.counters.connectionsOpen }));
    const held = !broken && hold.length > 0 && checkSlos(summariseRun(hold), plan.slos ?? []).every((r) => r.passed);
    steps.push({ step, clients: Math.max(0, ...seconds.map((s) => s.clients)), held });
    if (held) clients = Math.max(...hold.map((s) => s.clients));
    else broken = true;
  }
  return { valid: true, clients, problems: [], steps };
}

export function exitCodeForVerdict(verdict: RunVerdict): ExitCode {
  if (verdict.outcome === "passed") return ExitCode.ok;
  if (verdict.outcome === "breached") return ExitCode.sloFailed;
  return verdict.outcome === "incomplete" ? ExitCode.incomplete : ExitCode.failure;
}
