import path from "node:path";
import { packageBin } from "./binaries";
import { spawnChild, type Child, type ExitInfo } from "./child";
import { prefixedLog } from "./log";
import { freePort } from "./ports";
import { waitUntil } from "./wait";

export interface StackConfig {
  root: string;
  databaseUrl: string;
  redisUrl: string;
  authSecret: string;
  apiPort: number;
  webPort: number;
  /** pino level for api and workers; tests keep it quieter. */
  logLevel?: string;
  /** BullMQ key prefix; tests on a shared Redis use their own. */
  queuePrefix?: string;
  /** More environment for api, workers and web (after the stack's own). */
  env?: NodeJS.ProcessEnv;
}

export interface Stack {
  webUrl: string;
  apiUrl: string;
  /** Resolves with the first child to exit, whatever the reason; the caller decides if that was expected. */
  firstExit: Promise<{ name: string; info: ExitInfo }>;
  stop(): Promise<void>;
}

/** Starts api, workers and web against the given databases and resolves once the api and the web answer. */
export async function startStack(config: StackConfig): Promise<Stack> {
  const { root, apiPort, webPort } = config;
  const apiUrl = `http://localhost:${apiPort}`;
  const webUrl = `http://localhost:${webPort}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: config.databaseUrl,
    REDIS_URL: config.redisUrl,
    AUTH_SECRET: config.authSecret,
    API_PORT: String(apiPort),
    WEB_ORIGIN: webUrl,
    API_PUBLIC_URL: apiUrl,
    LOG_LEVEL: process.env.LOG_LEVEL ?? config.logLevel ?? "info",
    NEXT_TELEMETRY_DISABLED: "1",
    // The workers' /metrics on a free port (their log says which): an e2e stack may run beside `npm start`.
    WORKERS_METRICS_PORT: String(await freePort()),
    ...(config.queuePrefix ? { QUEUE_PREFIX: config.queuePrefix } : {}),
    ...config.env,
  };
  const node = (name: string, entry: string): Child =>
    spawnChild({
      name,
      command: process.execPath,
      args: ["--import", "tsx", entry],
      cwd: root,
      env,
      log: prefixedLog(name),
    });

  const webDir = path.join(root, "apps/web");
  // The next binary itself rather than `npx next`: no npm wrapper between us and the signals we send.
  const nextBin = packageBin(webDir, "next", "next");
  const children = [
    node("api", "apps/api/src/main.ts"),
    node("workers", "workers/src/main.ts"),
    spawnChild({
      name: "web",
      command: process.execPath,
      args: [nextBin, "start", "-p", String(webPort)],
      cwd: webDir,
      env: { ...env, NODE_ENV: "production", PORT: String(webPort), API_URL: `http://127.0.0.1:${apiPort}` },
      log: prefixedLog("web"),
    }),
  ];
  const stop = async () => {
    await Promise.all(children.map((child) => child.stop()));
  };
  const anyDied = Promise.race(children.map((child) => child.diedEarly));
  try {
    await waitUntil(() => answers(`http://127.0.0.1:${apiPort}/health`, (status) => status === 200), {
      what: `the api's /health on port ${apiPort}`,
      timeoutMs: 60_000,
      abort: anyDied,
    });
    await waitUntil(() => answers(`http://127.0.0.1:${webPort}/`, (status) => status < 500), {
      what: `the web on port ${webPort}`,
      timeoutMs: 120_000,
      abort: anyDied,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const firstExit = Promise.race(children.map((child) => child.exited.then((info) => ({ name: child.name, info }))));
  return { webUrl, apiUrl, firstExit, stop };
}

async function answers(url: string, good: (status: number) => boolean): Promise<boolean> {
  const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(5_000) });
  await response.body?.cancel();
  return good(response.status);
}
