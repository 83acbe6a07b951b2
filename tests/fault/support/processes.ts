import { promises as fs } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { agentBuild, buildIfStale } from "../../../infra/local/build";
import { spawnChild, type Child } from "../../../infra/local/child";
import { waitUntil } from "../../../infra/local/wait";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const agentBin = path.join(root, agentBuild.output);
export const WEB_ORIGIN = "http://localhost:3000";

/** What the api and workers processes share: one database, one Redis, one queue prefix. */
export interface ServerEnv {
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  authSecret: string;
  /** HEARTBEAT_INTERVAL_MS for both (the gateway's liveness and the agents' own); default 5000. */
  heartbeatMs?: number;
}

const quietOutput = { LOG_LEVEL: "info" }; // kept for error messages only (spawnChild's tail), never printed

/** Builds the agent bundle once even when several fault files start at the same time. */
export async function ensureAgentBuilt(): Promise<void> {
  const lock = path.join(root, ".data", "fault-agent-build.lock");
  await fs.mkdir(path.dirname(lock), { recursive: true });
  await waitUntil(async () => fs.mkdir(lock).then(() => true), {
    what: "the agent build lock",
    timeoutMs: 120_000,
    intervalMs: 200,
  });
  try {
    await buildIfStale(root, agentBuild, () => undefined);
  } finally {
    await fs.rmdir(lock);
  }
}

function serverEnv(env: ServerEnv, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...quietOutput,
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    QUEUE_PREFIX: env.queuePrefix,
    AUTH_SECRET: env.authSecret,
    WEB_ORIGIN,
    NODE_ENV: "test",
    ...(env.heartbeatMs ? { HEARTBEAT_INTERVAL_MS: String(env.heartbeatMs) } : {}),
    ...extra,
  };
}

/** An api process on `port`, on every address (agents in namespaces reach it on their gateway); resolves once /health answers. */
export async function startApi(
  env: ServerEnv,
  port: number,
  name = "api",
  extraEnv: Record<string, string> = {},
  nodeArgs: string[] = [],
  log?: (line: string) => void,
): Promise<Child> {
  const child = spawnChild({
    name,
    command: process.execPath,
    args: [...nodeArgs, "--import", "tsx", "apps/api/src/main.ts"],
    cwd: root,
    log,
    env: serverEnv(env, {
      API_PORT: String(port),
      API_HOST: "0.0.0.0",
      API_PUBLIC_URL: `http://127.0.0.1:${port}`,
      ...extraEnv,
    }),
  });
  await waitUntil(
    async () => (await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) })).status === 200,
    {
      what: `${name} /health on port ${port}`,
      timeoutMs: 60_000,
      abort: child.diedEarly,
    },
  );
  return child;
}

/**
 * A workers process; resolves once it logged that its BullMQ worker is ready. Its metrics server is off unless
 * `extraEnv` sets WORKERS_METRICS_PORT: test files start several workers at once, the default port fits one.
 */
export async function startWorkers(
  env: ServerEnv,
  name = "workers",
  extraEnv: Record<string, string> = {},
  log?: (line: string) => void,
): Promise<Child> {
  let ready = false;
  const child = spawnChild({
    name,
    command: process.execPath,
    args: ["--import", "tsx", "workers/src/main.ts"],
    cwd: root,
    env: serverEnv(env, { WORKERS_METRICS_PORT: "0", ...extraEnv }),
    log: (line) => {
      ready ||= line.includes('"workers ready"');
      log?.(line);
    },
  });
  await waitUntil(async () => ready, { what: `${name} to be ready`, timeoutMs: 60_000, abort: child.diedEarly });
  return child;
}

/** The reference target (`throng-agent target`) on every address, so agents in namespaces reach it too. */
export async function startTarget(port: number): Promise<Child> {
  const child = spawnChild({
    name: "target",
    command: process.execPath,
    args: [agentBin, "target", "--host", "0.0.0.0", "--port", String(port)],
    cwd: root,
  });
  await waitUntil(() => canConnect(port), {
    what: `the target on port ${port}`,
    timeoutMs: 20_000,
    abort: child.diedEarly,
  });
  return child;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/** kill -9 of the process group: no shutdown handler runs, sockets are reset by the kernel. */
export async function killHard(child: Child): Promise<void> {
  await child.stop("SIGKILL", 1_000);
}
