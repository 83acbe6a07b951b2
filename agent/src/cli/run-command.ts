import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { dirname, resolve } from "node:path";
import type { RunAssignment } from "@throng/protocol/agent";
import type { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { enginesFor, runOnEngines, SCRIPT_CLIENTS_PER_ENGINE } from "../engine/engines";
import { createSearchFeed } from "../engine/search-feed";
import { createLocalSearch, searchVerdictText } from "./local-search";
import { claimShardBlock, shardSetup, thisHost } from "../engine/shard-setup";
import { openFileNote, raiseOpenFileLimit } from "../engine/open-files";
import { resolveWatchedProcess } from "../metrics/process-watch";
import { createServerTimeline, type ServerTimeline } from "../metrics/server-timeline";
import { summariseServerWatch } from "@throng/protocol/server-watch";
import { LOCAL_AGENT, localFigures, localRecords, localRun, summariseSteps } from "../metrics/run-summary";
import { measureStep } from "@throng/wire/capacity-step";
import { NetworkRefusal } from "../network/cohort-network";
import { agentSecond, judgeRun, type SearchEvidence } from "@throng/protocol/run-verdict";
import { searchAnswer, type JudgedStep } from "@throng/protocol/capacity-search";
import type { RunVerdict } from "@throng/protocol/report";
import { ioPathNote } from "../transports/native-io";
import { ExitCode } from "./exit-codes";
import { readPlanFile } from "@throng/wire/plan-reader";
import { standaloneSecrets } from "./standalone-secrets";
import {
  cohortSummaryText,
  progressLine,
  progressTableRows,
  serverSummaryText,
  stepsText,
  summaryText,
  verdictText,
} from "./progress";
import { scriptSummaryText } from "./script-summary";
import { sessionStepKinds, sessionStepsText } from "./session-summary";
import { NO_SCRIPT_STORE, scriptRefusal } from "../scripts/script-permission";
import { shutdownSignal } from "./signals";

export interface RunArgs {
  planPath: string;
  out?: string;
  /** Engine processes; default one per core, more when the clients need them under the open-file limit. */
  engines?: number;
  sourceAddresses?: string[];
  quiet?: boolean;
  /** The server under test, on this host: its CPU, memory and the host's packets join each second. */
  watchPid?: number;
  watchName?: string;
  /** `--allow-scripts`: run a plan whose scenario is a script. */
  allowScripts?: boolean;
  /** THRONG_SECRET_<NAME> values, and `--secrets-file`: the plan's {{secrets.NAME}}. */
  envSecrets?: Record<string, string>;
  secretsFile?: string;
}

/** The server to watch, or undefined when none was asked for; throws a usage error naming the flag. */
export function serverTimelineFor(args: Pick<RunArgs, "watchPid" | "watchName">): ServerTimeline | undefined {
  if (args.watchPid === undefined && args.watchName === undefined) return undefined;
  const watched = resolveWatchedProcess(
    { pid: args.watchPid, name: args.watchName },
    { pid: "--watch-pid", name: "--watch-name" },
  );
  if ("error" in watched) throw new WatchTargetError(watched.error);
  return createServerTimeline(watched.pid);
}

/** The process to watch is missing or ambiguous: a usage error (exit 2), raised before any load. */
export class WatchTargetError extends Error {}

/** `throng-agent run plan.yaml`: runs a plan standalone; exits 0 when every SLO passed, 5 when one failed. */
export async function runCommand(args: RunArgs): Promise<ExitCode> {
  const plan = withScriptPath(await readPlanFile(args.planPath), args.planPath);
  const byHash = plan.scenario.kind === "script" && "sha256" in plan.scenario.script;
  const scriptRefused = byHash
    ? NO_SCRIPT_STORE
    : await scriptRefusal(plan.scenario, args.allowScripts ? { any: true } : undefined);
  if (scriptRefused) {
    console.error(`error: ${scriptRefused}`);
    return ExitCode.usage;
  }
  // Before any load: a secret the plan names without a value is a usage error naming it (never a placeholder sent).
  const secrets = await standaloneSecrets(plan, {
    env: args.envSecrets ?? {},
    ...(args.secretsFile ? { file: args.secretsFile } : {}),
  });
  const assignment: RunAssignment = {
    runId: randomUUID(),
    shardIndex: 0,
    shardCount: 1,
    clients: plan.load.clients,
    plan,
    startAt: Date.now() + 200,
    ...(Object.keys(secrets).length ? { secrets } : {}),
  };
  // Before any engine is forked: engines inherit the raised limit.
  console.error(openFileNote(raiseOpenFileLimit()));
  // Engines sized to the clients under the open-file limit, and loopback source addresses: as `connect` does. The
  // addresses' block is this process's until it exits (another run started beside this one takes the next).
  const block = await claimShardBlock(assignment, args);
  const setup = shardSetup(assignment, args, thisHost(), block);
  if ("refused" in setup) {
    console.error(`error: ${setup.refused}`);
    return ExitCode.usage;
  }
  const { engines, sourceAddresses } = setup;
  // A script shard shares engines up to SCRIPT_CLIENTS_PER_ENGINE clients each (engines.ts), unless --engines says.
  const shardEngines = enginesFor(plan.scenario, plan.load.clients, engines, args.engines !== undefined);
  for (const note of setup.notes) console.error(note);
  const server = serverTimelineFor(args);
  const out = args.out ? createWriteStream(args.out) : undefined;
  const snapshots: MetricSnapshot[] = [];
  const table = process.stdout.isTTY === true;
  const shutdown = shutdownSignal(() => process.exit(ExitCode.failure));
  // An automatic capacity search ends the run once it has its answer; a signal still stops it too.
  const searchEnd = new AbortController();
  const searchFeed = createSearchFeed();
  const search = createLocalSearch({
    plan,
    feed: searchFeed,
    onEnd: () => searchEnd.abort(),
    log: (line) => console.log(line),
  });
  const scriptNote =
    shardEngines < engines
      ? ` (a script's clients share an engine up to ${SCRIPT_CLIENTS_PER_ENGINE}; --engines N to choose)`
      : "";
  console.log(
    `running "${plan.name}": ${plan.load.clients} clients, ${plan.load.durationSec} s, ${plan.scenario.kind} over ${plan.target.protocol}, ${shardEngines} engine(s)${scriptNote}`,
  );
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
        if (table)
          for (const line of progressTableRows(second, snapshots.length - 1, server !== undefined)) console.log(line);
        else console.log(progressLine(second));
      },
    });
  } catch (error) {
    // A plan whose network cohorts this agent cannot apply: refused before any load.
    if (!(error instanceof NetworkRefusal)) throw error;
    console.error(`error: ${error.message}`);
    return ExitCode.usage;
  } finally {
    shutdown.dispose();
    if (out) await new Promise<void>((resolve) => out.end(resolve));
  }
  const run = localRun(snapshots);
  const verdict = standaloneVerdict(
    plan,
    snapshots,
    run,
    assignment.startAt,
    searchEnd.signal.aborted,
    search ? searchEstimate(search.judged()) : fixedStepEstimate(plan, snapshots),
  );
  const steps = stepsText(summariseSteps(snapshots));
  if (steps) console.log(steps);
  if (search) console.log(searchVerdictText(search.judged()));
  if (run.summary) console.log(summaryText(run.summary, localFigures(snapshots), verdict.slos));
  for (const [name, cohort] of Object.entries(run.summary?.cohorts ?? {})) console.log(cohortSummaryText(name, cohort));
  const sessionLines = run.summary && sessionStepsText(run.summary, sessionStepKinds(plan.scenario));
  if (sessionLines) console.log(sessionLines);
  const scriptLines = run.summary && scriptSummaryText(run.summary);
  if (scriptLines) console.log(scriptLines);
  if (server)
    console.log(serverSummaryText(server.pid, summariseServerWatch(server.samples()), server.endedAfterSeq()));
  console.log(verdictText(verdict));
  return exitCodeForVerdict(verdict);
}

/** A script given by path is found relative to the plan file, as the plan's author sees it. */
export function withScriptPath(plan: PlanSpec, planPath: string): PlanSpec {
  const { scenario } = plan;
  if (scenario.kind !== "script" || !("path" in scenario.script)) return plan;
  return { ...plan, scenario: { ...scenario, script: { path: resolve(dirname(planPath), scenario.script.path) } } };
}

/** The same verdict the control plane gives (@throng/protocol/run-verdict), from this run's own seconds merged as it merges them. */
function standaloneVerdict(
  plan: PlanSpec,
  snapshots: readonly MetricSnapshot[],
  run: ReturnType<typeof localRun>,
  startAt: number,
  searchEnded: boolean,
  capacity: Parameters<typeof judgeRun>[0]["capacity"],
): RunVerdict {
  const last = run.seconds[run.seconds.length - 1];
  return judgeRun({
    spec: plan,
    ended: run.summary ? "finished" : "failed",
    problems: run.summary ? [] : ["no second was measured"],
    summary: run.summary,
    seconds: run.seconds,
    startSecond: Math.floor(startAt / 1000),
    ...(searchEnded && last ? { endedEarlyAtSecond: last.t + 1 } : {}),
    agentHealth: snapshots.map((s) => agentSecond(Math.floor(s.intervalStart / 1000), LOCAL_AGENT, s.health)),
    ...(capacity !== undefined ? { capacity } : {}),
  });
}

/** What the standalone search's steps support (searchAnswer, as the control plane reads them). */
export function searchEstimate(judged: readonly JudgedStep[]): SearchEvidence {
  const answer = searchAnswer(judged);
  const problems = answer.notHeldAgain.length
    ? [
        `the server did not recover at ${answer.lastHeld!.clients} clients, the last level that held: the estimate is not valid`,
      ]
    : [];
  const steps = judged.map((s, step) => ({ step, clients: s.clients, held: s.held }));
  return {
    valid: answer.held !== null,
    clients: answer.held?.clients ?? null,
    problems,
    noLevelHeld: judged.length > 0 && answer.lastHeld === null,
    steps,
  };
}

/**
 * A fixed step-up run's estimate: the clients of the largest step that held every SLO over its steady seconds
 * below the first step that broke, each step judged as the control plane judges it (measureStep); undefined for
 * any other plan (judged by its SLOs).
 */
export function fixedStepEstimate(plan: PlanSpec, snapshots: readonly MetricSnapshot[]): SearchEvidence | undefined {
  if (plan.load.shape?.kind !== "step-up" || plan.load.shape.mode === "auto") return undefined;
  const bySteps = new Map<number, MetricSnapshot[]>();
  for (const snapshot of snapshots)
    if (snapshot.step !== undefined) bySteps.set(snapshot.step, [...(bySteps.get(snapshot.step) ?? []), snapshot]);
  let clients: number | null = null;
  let broken = false;
  const steps: NonNullable<SearchEvidence["steps"]>[number][] = [];
  for (const [step, seconds] of [...bySteps.entries()].sort(([a], [b]) => a - b)) {
    const measured = measureStep(step, localRecords(seconds), plan.slos ?? []);
    const held = !broken && measured.seconds > 0 && measured.held;
    steps.push({ step, clients: measured.clients, held });
    if (held) clients = measured.clients;
    else broken = true;
  }
  return { valid: true, clients, problems: [], steps };
}

export function exitCodeForVerdict(verdict: RunVerdict): ExitCode {
  if (verdict.outcome === "passed") return ExitCode.ok;
  if (verdict.outcome === "breached") return ExitCode.sloFailed;
  return verdict.outcome === "incomplete" ? ExitCode.incomplete : ExitCode.failure;
}
