import { promises as fs } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { AGENT_GATEWAY_PATH } from "@throng/protocol/agent";
import { stopAllChildren } from "../infra/local/child";
import { prefixedLog } from "../infra/local/log";
import { runBenchMain } from "./bench-main";
import { freePort } from "../infra/local/ports";
import { makeTempDir } from "../infra/local/temp-dir";
import { startBenchServers } from "./bench-servers";
import { signUp } from "../tests/fault/support/api-client";
import { startApi, startWorkers } from "../tests/fault/support/processes";
import { collectStages, stageTable } from "./control-plane/stages";
import { runStep } from "./control-plane/step";
import { table, type StepResult } from "./control-plane/table";

const log = prefixedLog("bench");
const argValue = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const steps = (argValue("--steps") ?? "50,100,250,500")
  .split(",")
  .map(Number)
  .filter((n) => n > 0 && n <= 5000);
const runSeconds = Math.min(Number(argValue("--seconds") ?? 10), 120);
const drainSec = Math.min(Number(argValue("--drain-sec") ?? 30), 300);
const noFsync = process.argv.includes("--no-fsync");
/** `--cpu-prof DIR`: the api writes a V8 CPU profile per step into DIR (it is then stopped with SIGTERM, not kill -9). */
const cpuProfDir = argValue("--cpu-prof");

async function main(): Promise<void> {
  const dir = await makeTempDir("throng-bench-cp-");
  try {
    // Production-like servers unless --no-fsync: PostgreSQL with fsync, Redis append-only (as `npm start` runs them).
    const { database, env } = await startBenchServers(dir, { ephemeral: noFsync });
    log(
      `runs of ${runSeconds} s, ${drainSec} s to drain; steps ${steps.join(", ")} agents; PostgreSQL fsync ${noFsync ? "off" : "on"}`,
    );

    const results: StepResult[] = [];
    for (const [index, count] of steps.entries()) {
      const port = await freePort();
      // Debug level: the api logs each live point's stage times, which `stages` reads (it has no other debug lines).
      const stages = collectStages();
      const api = await startApi(
        env,
        port,
        "api",
        { LOG_LEVEL: "debug" },
        cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(cpuProfDir)}`] : [],
        stages.line,
      );
      const workers = await startWorkers(env);
      const apiUrl = `http://127.0.0.1:${port}`;
      const browser = await signUp(apiUrl);
      log(`step ${index + 1}: ${count} agents (load average ${loadavg()[0]!.toFixed(1)})`);
      // An api that dies under the load ends the bench with its last words rather than a stuck step.
      const result = await Promise.race([
        runStep({
          count,
          label: `step-${index}`,
          runSeconds,
          drainSec,
          browser,
          apiUrl,
          apiPid: api.process.pid!,
          gatewayUrl: `ws://127.0.0.1:${port}${AGENT_GATEWAY_PATH}`,
          databaseUrl: database.url,
          log,
          stages,
        }),
        api.diedEarly,
        workers.diedEarly,
      ]);
      results.push(result);
      if (!["finished", "failed", "aborted"].includes(result.run))
        log(`workers' last lines:\n${workers.tail().split("\n").slice(-5).join("\n")}`);
      log(table([result]).split("\n").at(-1)!);
      log(stageTable([result.stages]).split("\n").at(-1)!);
      await Promise.all([
        api.stop(cpuProfDir ? "SIGTERM" : "SIGKILL", cpuProfDir ? 20_000 : 1_000),
        workers.stop("SIGKILL", 1_000),
      ]); // a fresh pair for the next step
    }
    console.log(
      `\ncontrol plane: one api + one workers process, ${runSeconds} s runs, 1 snapshot per agent per second, PostgreSQL fsync ${noFsync ? "off" : "on"}:\n`,
    );
    console.log(table(results));
    console.log(
      "\nstages: time since the agent sent its snapshot, p50 / p99 over the snapshots the api traced (each agent's second",
    );
    console.log(
      "at the first live point that carried it): received by ingest, its batch committed, its merge's coalescing window",
    );
    console.log(
      "ended, the second's lock held, the point built, published to Redis (point, then agent-health), the roll-up",
    );
    console.log("upserted, and the agent-health message received by the browser:\n");
    console.log(stageTable(results.map((result) => result.stages)));
  } finally {
    await stopAllChildren();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

runBenchMain(main, log);
