// npm start: PostgreSQL and Redis (found or started), migrations, builds when stale, then api, workers and web.
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { migrateToLatest } from "@throng/db/migrate";
import { agentBuild, buildIfStale, webBuild } from "./build";
import { stopAllChildren } from "./child";
import { prefixedLog } from "./log";
import { assertPortFree } from "./ports";
import { ensurePostgres } from "./postgres";
import { ensureRedis } from "./redis";
import { startStack } from "./stack";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dataDir = path.join(root, ".data");
const log = prefixedLog("throng");

function portFromEnv(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`${name}=${value} is not a port number (1-65535).`);
  return port;
}

/** AUTH_SECRET from the environment, else one generated on the first start and kept, so sessions survive restarts. */
async function authSecret(): Promise<string> {
  if (process.env.AUTH_SECRET) return process.env.AUTH_SECRET;
  const file = path.join(dataDir, "auth-secret");
  try {
    return (await fs.readFile(file, "utf8")).trim();
  } catch {
    const secret = randomBytes(32).toString("base64url");
    await fs.writeFile(file, `${secret}\n`, { mode: 0o600 });
    log(`generated AUTH_SECRET into ${path.relative(root, file)}`);
    return secret;
  }
}

let stopping: Promise<never> | undefined;
/** Stops everything once, whoever asks first (a signal, a failed step, a child that died). */
function shutdown(code: number, reason?: string): Promise<never> {
  stopping ??= (async () => {
    if (reason) log(reason);
    log("stopping");
    await stopAllChildren(); // Apps first, then Redis and PostgreSQL.
    log("stopped");
    process.exit(code);
  })();
  return stopping;
}

async function main(): Promise<void> {
  const ports = {
    postgres: portFromEnv("PG_PORT", 5433),
    redis: portFromEnv("REDIS_PORT", 6380),
    api: portFromEnv("API_PORT", 4000),
    web: portFromEnv("WEB_PORT", 3000),
  };
  const hint = " (is another `npm start` still running?)";
  if (!process.env.DATABASE_URL) await assertPortFree(ports.postgres, "PostgreSQL", "PG_PORT", hint);
  if (!process.env.REDIS_URL) await assertPortFree(ports.redis, "Redis", "REDIS_PORT", hint);
  await assertPortFree(ports.api, "the api", "API_PORT", hint);
  await assertPortFree(ports.web, "the web", "WEB_PORT", hint);

  await fs.mkdir(dataDir, { recursive: true, mode: 0o755 });
  const postgres = await ensurePostgres({
    dataDir: path.join(dataDir, "postgres"),
    port: ports.postgres,
    log: prefixedLog("postgres"),
  });
  const redis = await ensureRedis({
    dataDir: path.join(dataDir, "redis"),
    port: ports.redis,
    log: prefixedLog("redis"),
  });
  const applied = await migrateToLatest(postgres.url);
  log(applied.length ? `applied migrations: ${applied.join(", ")}` : "database schema is up to date");

  await buildIfStale(root, agentBuild, log);
  await buildIfStale(root, webBuild, log);

  const stack = await startStack({
    root,
    databaseUrl: postgres.url,
    redisUrl: redis.url,
    authSecret: await authSecret(),
    apiPort: ports.api,
    webPort: ports.web,
  });
  log(`Throng is running: ${stack.webUrl}`);
  log(
    `Agent: node agent/dist/throng-agent.mjs connect --server ${stack.apiUrl} --token <token from the Agents page>; reference target: node agent/dist/throng-agent.mjs target`,
  );
  log("Press Ctrl-C to stop.");

  const { name, info } = await Promise.race([
    stack.firstExit,
    postgres.exited.then((exit) => ({ name: "postgres", info: exit })),
    redis.exited.then((exit) => ({ name: "redis", info: exit })),
  ]);
  if (stopping) return; // We stopped it.
  const how = info.signal ? `was killed by ${info.signal}` : `exited with code ${info.code}`;
  await shutdown(1, `${name} ${how} unexpectedly; stopping everything.`);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void shutdown(0));
main().catch((error: unknown) =>
  shutdown(1, `npm start failed: ${error instanceof Error ? error.message : String(error)}`),
);
