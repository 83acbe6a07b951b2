import { randomBytes } from "node:crypto";
import path from "node:path";
import { createTestDatabase, uniquePrefix } from "@throng/db/testing";
import { prefixedLog } from "../infra/local/log";
import { freePort } from "../infra/local/ports";
import { ensurePostgres, type Postgres } from "../infra/local/postgres";
import { ensureRedis, type Redis } from "../infra/local/redis";
import type { ServerEnv } from "../tests/fault/support/processes";

/** A bench's own PostgreSQL and Redis under `dir`: PostgreSQL with fsync unless `ephemeral`, their lines logged unless `quiet`. */
export async function startBenchDatabases(
  dir: string,
  options: { ephemeral?: boolean; quiet?: boolean } = {},
): Promise<{ postgres: Postgres; redis: Redis }> {
  const serverLog = (name: string) => (options.quiet ? () => undefined : prefixedLog(name));
  const postgres = await ensurePostgres({
    dataDir: path.join(dir, "postgres"),
    port: await freePort(),
    log: serverLog("postgres"),
    envVar: "BENCH_DATABASE_URL",
    ephemeral: options.ephemeral ?? false,
  });
  const redis = await ensureRedis({
    dataDir: path.join(dir, "redis"),
    port: await freePort(),
    log: serverLog("redis"),
    envVar: "BENCH_REDIS_URL",
  });
  return { postgres, redis };
}

/** startBenchDatabases, a fresh database on its PostgreSQL, and the environment the API and workers start with. */
export async function startBenchServers(
  dir: string,
  options: { ephemeral?: boolean; quiet?: boolean } = {},
): Promise<{ database: Awaited<ReturnType<typeof createTestDatabase>>; env: ServerEnv }> {
  const { postgres, redis } = await startBenchDatabases(dir, options);
  process.env.TEST_DATABASE_URL = postgres.adminUrl;
  const database = await createTestDatabase();
  const env: ServerEnv = {
    databaseUrl: database.url,
    redisUrl: redis.url,
    queuePrefix: uniquePrefix(),
    authSecret: randomBytes(32).toString("base64url"),
  };
  return { database, env };
}
