import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { migrateToLatest } from "@throng/db/migrate";
import { createTestDatabase, uniquePrefix } from "@throng/db/testing";
import { spawnChild, type Child } from "../../../infra/local/child";
import { freePort } from "../../../infra/local/ports";
import { ensurePostgres, type Postgres } from "../../../infra/local/postgres";
import { ensureRedis, type Redis } from "../../../infra/local/redis";
import { makeTempDir } from "../../../infra/local/temp-dir";
import { waitUntil } from "../../../infra/local/wait";
import { startAgentTap, type AgentTap } from "./agent-tap";
import { getSeries, pingPongPlan, signUp, waitForAgents, type Browser } from "./api-client";
import { createRig, namespacesUnavailable, removeStaleRigs, type Rig } from "./netns";
import {
  agentBin,
  ensureAgentBuilt,
  killHard,
  root,
  startApi,
  startTarget,
  startWorkers,
  type ServerEnv,
} from "./processes";
import { expectedSeries, measured, storedFacts } from "./series-check";
import { agentConnectArgs } from "../../support/agent-process";
import { runCleanups } from "../../support/file-cleanups";

export interface FaultAgent {
  id: string;
  /** The rig's own address when it runs in a namespace. */
  address: string | null;
  tap: AgentTap;
  /** Cuts the agent off: its namespace link goes down (or, without namespaces, its relay blackholes). */
  cut(): Promise<void>;
  restore(): Promise<void>;
  /** Its credential file; the on-disk snapshot buffer sits beside it (agent/PROTOCOL.md §5.1). */
  configPath: string;
  /** The --server address it dials (its relay), as the agent names it on disk. */
  server: string;
  /** kill -9 of the agent process: no shutdown handler runs, its socket is reset by the kernel. */
  kill(): Promise<void>;
  /** Sends a signal to the agent's whole process group (its engine processes too): SIGSTOP freezes it, SIGCONT resumes it. */
  signal(signal: NodeJS.Signals): void;
  /** Starts the agent again with the same arguments and credential file, and waits until it is connected. */
  restart(): Promise<void>;
}

export interface FaultCluster {
  /** Why agents share this machine's network instead of namespaces, or undefined when they have their own. */
  noNamespaces: string | undefined;
  apiUrls: string[];
  browser: Browser;
  agents: FaultAgent[];
  killApi(index?: number): Promise<void>;
  startApi(index?: number): Promise<void>;
  killWorkers(): Promise<void>;
  startWorkers(): Promise<void>;
  /** Restarts the private Redis (append-only, like `npm start`'s): SIGTERM, then a new server on the same port and data. */
  restartRedis(): Promise<void>;
  /** The private PostgreSQL (startFaultCluster({ privatePostgres: true })): a fast shutdown, then a start on the same port and data. */
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  /** Every line the api and workers processes printed (pino JSON), in order. */
  logs: { api: string[]; workers: string[] };
  startRun(durationSec: number): Promise<string>;
  /** Per agent: what it sent for the run; and the stored series, both as comparable facts. */
  compare(runId: string): Promise<{
    byAgent: Map<string, ReturnType<typeof measured>>;
    expected: ReturnType<typeof expectedSeries>;
    stored: ReturnType<typeof storedFacts>;
  }>;
  close(): Promise<void>;
}

const noLog = () => undefined;

/** Starts workers, `apis` api processes, a target and `agents` real agents (each in its own namespace when possible). */
export interface FaultClusterOptions {
  agents: number;
  apis?: number;
  /** Its own append-only Redis instead of the test run's shared one (for restarting it). */
  privateRedis?: boolean;
  /** Its own PostgreSQL instead of the test run's shared one (for stopping it). */
  privatePostgres?: boolean;
  heartbeatMs?: number;
}

export async function startFaultCluster(options: FaultClusterOptions): Promise<FaultCluster> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const close = () => runCleanups(cleanups);
  try {
    return await setUp(options, cleanups, close);
  } catch (error) {
    await close();
    throw error;
  }
}

async function setUp(
  options: FaultClusterOptions,
  cleanups: (() => Promise<unknown>)[],
  close: () => Promise<void>,
): Promise<FaultCluster> {
  await ensureAgentBuilt();
  const dir = await makeTempDir("throng-fault-");
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  const noNamespaces = await namespacesUnavailable();
  if (!noNamespaces) await removeStaleRigs();

  const postgresOptions = {
    dataDir: path.join(dir, "postgres"),
    port: await freePort(),
    log: noLog,
    ephemeral: true,
    envVar: "THRONG_FAULT_NEVER_SET",
  };
  let postgres: Postgres | undefined;
  let databaseUrl: string;
  if (options.privatePostgres) {
    postgres = await ensurePostgres(postgresOptions);
    cleanups.push(() => postgres?.stop() ?? Promise.resolve());
    databaseUrl = postgres.url;
    await migrateToLatest(databaseUrl);
  } else {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    databaseUrl = database.url;
  }
  let redis: Redis | undefined;
  const redisOptions = {
    dataDir: path.join(dir, "redis"),
    port: await freePort(),
    log: noLog,
    envVar: "THRONG_FAULT_NEVER_SET",
  };
  if (options.privateRedis) {
    redis = await ensureRedis(redisOptions);
    cleanups.push(() => redis!.stop());
  }
  const env: ServerEnv = {
    databaseUrl,
    redisUrl: redis?.url ?? process.env.REDIS_URL!,
    queuePrefix: uniquePrefix(),
    authSecret: randomBytes(32).toString("base64url"),
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
  };

  const apiPorts = await Promise.all(Array.from({ length: options.apis ?? 1 }, () => freePort()));
  const logs = { api: [] as string[], workers: [] as string[] };
  const apiLog = (line: string) => logs.api.push(line);
  const workersLog = (line: string) => logs.workers.push(line);
  const apis: (Child | undefined)[] = await Promise.all(
    apiPorts.map((port, i) => startApi(env, port, `api-${i}`, {}, [], apiLog)),
  );
  cleanups.push(() => Promise.all(apis.map((api) => api?.stop("SIGKILL", 1_000))));
  let workers: Child | undefined = await startWorkers(env, "workers", {}, workersLog);
  cleanups.push(() => workers?.stop("SIGKILL", 1_000) ?? Promise.resolve());
  const targetPort = await freePort();
  const target = await startTarget(targetPort);
  cleanups.push(() => target.stop());

  const apiUrls = apiPorts.map((port) => `http://127.0.0.1:${port}`);
  const browser = await signUp(apiUrls[0]!);
  const { token } = await browser.request<{ token: string }>("POST", "/api/enrolment-tokens", { expiresInMinutes: 60 });

  const agents: FaultAgent[] = [];
  const rigs: Rig[] = [];
  for (let i = 0; i < options.agents; i++) {
    const rig = noNamespaces ? undefined : await createRig(i);
    if (rig) {
      rigs.push(rig);
      cleanups.push(() => rig.remove());
    }
    agents.push(await startAgent(i, rig, token, apiPorts[0]!, dir, cleanups));
  }
  await waitForAgents(browser, options.agents);
  const targetUrl = `ws://${rigs[0]?.gateway ?? "127.0.0.1"}:${targetPort}/ws`;

  return {
    noNamespaces,
    apiUrls,
    browser,
    agents,
    async killApi(index = 0) {
      await killHard(apis[index]!);
      apis[index] = undefined;
    },
    async startApi(index = 0) {
      apis[index] = await startApi(env, apiPorts[index]!, `api-${index}`, {}, [], apiLog);
    },
    async killWorkers() {
      await killHard(workers!);
      workers = undefined;
    },
    async startWorkers() {
      workers = await startWorkers(env, "workers", {}, workersLog);
    },
    async restartRedis() {
      if (!redis) throw new Error("restartRedis needs startFaultCluster({ privateRedis: true })");
      await redis.stop();
      redis = await ensureRedis(redisOptions);
    },
    async stopPostgres() {
      if (!postgres) throw new Error("stopPostgres needs startFaultCluster({ privatePostgres: true })");
      await postgres.stop();
    },
    async startPostgres() {
      if (!postgres) throw new Error("startPostgres needs startFaultCluster({ privatePostgres: true })");
      postgres = await ensurePostgres(postgresOptions);
    },
    logs,
    async startRun(durationSec) {
      const plan = await browser.request<{ id: string }>("POST", "/api/plans", pingPongPlan(targetUrl, durationSec));
      return (await browser.request<{ id: string }>("POST", `/api/plans/${plan.id}/runs`)).id;
    },
    async compare(runId) {
      const byAgent = new Map(agents.map((agent) => [agent.id, measured(agent.tap.record, runId)]));
      const snapshots = new Map<string, MetricSnapshot[]>([...byAgent].map(([id, m]) => [id, m.snapshots]));
      return { byAgent, expected: expectedSeries(snapshots), stored: storedFacts(await getSeries(browser, runId)) };
    },
    close,
  };
}

async function startAgent(
  index: number,
  rig: Rig | undefined,
  token: string,
  apiPort: number,
  dir: string,
  cleanups: (() => Promise<unknown>)[],
): Promise<FaultAgent> {
  const tap = await startAgentTap({ host: rig?.gateway ?? "127.0.0.1", apiPort });
  cleanups.push(() => tap.close());
  let id = "";
  const configPath = path.join(dir, `agent-${index}.json`);
  const server = `http://${rig?.gateway ?? "127.0.0.1"}:${tap.port}`;
  const argv = [
    process.execPath,
    agentBin,
    ...agentConnectArgs(server, token, configPath),
    "--label",
    `rig=${index}`,
    "--engines",
    "1",
  ];
  const { command, args } = rig ? rig.command(argv) : { command: argv[0]!, args: argv.slice(1) };
  const spawn = async () => {
    let connected = false;
    const child = spawnChild({
      name: `agent-${index}`,
      command,
      args,
      cwd: root,
      env: { ...process.env, HOME: dir },
      log: (line) => {
        const match = /connected to \S+ as agent (\S+)/.exec(line);
        if (match) [id, connected] = [match[1]!, true];
      },
    });
    cleanups.push(() => child.stop("SIGKILL", 1_000));
    await waitUntil(async () => connected, {
      what: `agent-${index} to connect`,
      timeoutMs: 30_000,
      abort: child.diedEarly,
    });
    return child;
  };
  let child = await spawn();
  return {
    id,
    address: rig?.address ?? null,
    tap,
    cut: async () => (rig ? rig.unplug() : tap.blackhole(true)),
    restore: async () => (rig ? rig.plug() : tap.blackhole(false)),
    configPath,
    server,
    kill: () => killHard(child),
    signal: (signal) => process.kill(-child.process.pid!, signal),
    async restart() {
      child = await spawn();
    },
  };
}
