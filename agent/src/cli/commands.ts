import { runAgent, type AgentRunShard } from "../connection/agent";
import type { AgentCapabilities, RunAssignment } from "@throng/protocol/agent";
import { availableParallelism } from "node:os";
import { createEnginePool } from "../engine/engine-pool";
import { runOnEngines } from "../engine/engines";
import { agentCapacity, openFileNote, raiseOpenFileLimit } from "../engine/open-files";
import { claimShardBlock, shardSetup, thisHost } from "../engine/shard-setup";
import { runSessionTrial } from "../engine/session-trial";
import { refusedTarget } from "../connection/target-guard";
import { scriptBundlePath, scriptCacheDirs } from "../scripts/script-cache";
import { scriptCapability, scriptRefusal, type ScriptPermission } from "../scripts/script-permission";
import { startTarget, type TargetOptions } from "../target/target-server";
import { startTargetGroup } from "../target/target-group";
import { ioPathNote } from "../transports/native-io";
import { consoleLogger } from "./console-logger";
import { ExitCode, exitCodeForClose } from "./exit-codes";
import { shutdownSignal } from "./signals";

export interface ConnectArgs {
  /** Engine processes per shard (default one per core, more when its clients need them); 1 runs the shard in this process. */
  engines?: number;
  /** Local IPs this rig's connections come from (a real network's extra addresses); default: the kernel's choice, or loopback addresses for a loopback target. */
  sourceAddresses?: string[];
  server: string;
  token?: string;
  configPath: string;
  labels: Record<string, string>;
  /** host[:port] rules this agent will load; empty: whatever the server assigns. */
  allowTargets?: string[];
  /** `--allow-scripts`: without it, script shards are refused. */
  allowScripts?: ScriptPermission;
}

/** `throng-agent connect`: runs until SIGINT/SIGTERM (0) or a refusal by the server (3, 4). */
export async function connectCommand(args: ConnectArgs): Promise<ExitCode> {
  const shutdown = shutdownSignal(() => process.exit(ExitCode.failure));
  const { engines, sourceAddresses, allowTargets = [], allowScripts, ...rest } = args;
  // Before any engine is forked: engines inherit the raised limit.
  const openFiles = raiseOpenFileLimit();
  consoleLogger.info(openFileNote(openFiles).replace(/^note: /, ""));
  const capacity = openFiles.after !== undefined ? agentCapacity(openFiles.after, engines) : undefined;
  // Forked now, before any assignment: forking per shard could eat the server's 2 s start lead. A shard whose clients
  // need more engines than cores (shardSetup) forks the rest when it comes.
  const spares = engines ?? availableParallelism();
  const pool =
    spares > 1
      ? createEnginePool(process.argv[1]!, spares, (up) =>
          consoleLogger.info(`${up} of ${spares} engine processes forked and ready`),
        )
      : undefined;
  try {
    // The same engine entry as `run`: several engine processes merged into one snapshot per second.
    const runShard: AgentRunShard = async (assignment: RunAssignment, { fetchScript, ...options }) => {
      const refused = refusedTarget(assignment, allowTargets);
      if (refused) throw new Error(refused); // reported to the server as the shard's failure
      // Permission first: a script this agent may not run is never downloaded.
      const scriptRefused = await scriptRefusal(assignment.plan.scenario, allowScripts);
      if (scriptRefused) throw new Error(scriptRefused);
      // A bundle by hash is fetched here, once per shard, in the process that holds the control connection; the
      // engine processes (which have none) are handed the verified file's path.
      const bundlePath = await scriptBundlePath(
        assignment.plan.scenario,
        scriptCacheDirs(rest.configPath),
        fetchScript,
      );
      const scripts = {
        allowTargets,
        ...(allowScripts ? { permission: allowScripts } : {}),
        ...(bundlePath ? { bundlePath } : {}),
      };
      // Engines sized to the shard's clients under the open-file limit, and loopback source addresses: as `run` does.
      const given = { ...(engines ? { engines } : {}), ...(sourceAddresses ? { sourceAddresses } : {}) };
      // The shard's loopback addresses are its own on this host while it runs (other agents' shards take others).
      const block = await claimShardBlock(assignment, given);
      const setup = shardSetup(assignment, given, thisHost(), block);
      if ("refused" in setup) {
        block?.release();
        throw new Error(setup.refused); // before any load; reported to the server as the shard's failure
      }
      for (const note of setup.notes)
        consoleLogger.info(`run ${assignment.runId.slice(0, 8)}: ${note.replace(/^note: /, "")}`);
      const placed = {
        engines: setup.engines,
        ...(setup.sourceAddresses ? { sourceAddresses: setup.sourceAddresses } : {}),
      };
      try {
        return await runOnEngines(assignment, {
          ...options,
          ...placed,
          enginesChosen: engines !== undefined,
          scripts,
          ...(pool ? { pool } : {}),
        });
      } finally {
        block?.release();
      }
    };
    // A session trial (one client, from the plan form) is held to the same allow-list as a shard.
    const runTrial = (plan: RunAssignment["plan"], secrets?: Readonly<Record<string, string>>) =>
      runSessionTrial(plan, { allowTargets, ...(secrets ? { secrets } : {}) });
    const capabilities: AgentCapabilities = { scripts: scriptCapability(allowScripts), allowTargets };
    const exit = await runAgent({
      ...rest,
      runShard,
      runTrial,
      log: consoleLogger,
      signal: shutdown.signal,
      capabilities,
      ...(capacity ? { capacity } : {}),
    });
    if (exit.kind === "stopped") return ExitCode.ok;
    consoleLogger.error(`the server refused this agent (close ${exit.closeCode}): ${exit.reason}`);
    return exitCodeForClose(exit.closeCode);
  } finally {
    pool?.close();
    shutdown.dispose();
  }
}

export type TargetArgs = TargetOptions & { host: string; port: number; reportEverySec?: number; processes?: number };

/** `throng-agent target`: serves until SIGINT/SIGTERM. */
export async function targetCommand(args: TargetArgs): Promise<ExitCode> {
  const shutdown = shutdownSignal(() => process.exit(ExitCode.failure));
  console.error(openFileNote(raiseOpenFileLimit()));
  try {
    let target: Awaited<ReturnType<typeof startTarget | typeof startTargetGroup>>;
    try {
      const { processes = 1, ...options } = args;
      target = processes > 1 ? await startTargetGroup({ ...options, processes }) : await startTarget(options);
    } catch (error) {
      consoleLogger.error(
        `cannot listen on ${args.host}:${args.port}: ${(error as Error).message}; pick another --port or --host`,
      );
      return ExitCode.failure;
    }
    console.log(`target listening on ${target.url}`);
    if (target.tcpPort) console.log(`target tcp on ${args.host}:${target.tcpPort}`);
    if (target.udpPort) console.log(`target udp on ${args.host}:${target.udpPort}`);
    if (target.kcpPort)
      console.log(`target kcp on ${args.host}:${target.kcpPort} (message mode, ${args.kcp?.mode ?? "fast"})`);
    if (args.processes && args.processes > 1)
      console.log(
        `target serving from ${args.processes} processes (SO_REUSEPORT)${target.udpPort ? "; UDP from the first only" : ""}`,
      );
    if (!args.tls) console.error(`note: ${ioPathNote()}`);
    // The target's own CPU and memory, so a benchmark can tell which side was the limit (also GET /stats).
    const running = target;
    const report = args.reportEverySec
      ? setInterval(
          () => void running.allStats().then((stats) => console.log(`target stats ${JSON.stringify(stats)}`)),
          args.reportEverySec * 1000,
        )
      : undefined;
    shutdown.signal.addEventListener("abort", () => clearInterval(report), { once: true });
    await new Promise<void>((resolve) => shutdown.signal.addEventListener("abort", () => resolve(), { once: true }));
    await target.close();
    return ExitCode.ok;
  } finally {
    shutdown.dispose();
  }
}
