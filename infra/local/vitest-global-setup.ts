import { promises as fs } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { stopAllChildren } from "./child";
import { prefixedLog } from "./log";
import { freePort } from "./ports";
import { ensurePostgres } from "./postgres";
import { ensureRedis } from "./redis";
import { makeTempDir } from "./temp-dir";

declare module "vitest" {
  export interface ProvidedContext {
    /** What vitest-env.ts copies into each test file's process.env. */
    throngTestEnv: Record<string, string>;
  }
}

/**
 * `npm test` passes TEST_DATABASE_URL and REDIS_URL. A developer running `npx vitest run some/file`
 * directly gets private throw-away servers instead, started here and stopped when vitest ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env: Record<string, string> = {};
  const stops: (() => Promise<void>)[] = [];
  let dir: string | undefined;
  if (!process.env.TEST_DATABASE_URL || !process.env.REDIS_URL) {
    dir = await makeTempDir("throng-vitest-");
    const log = prefixedLog("vitest");
    /** A throw-away server's options: its data in `dataDir`, a free port, and a variable of its own. */
    const throwAway = async (dataDir: string, envVar: string) => ({
      dataDir,
      port: await freePort(),
      log,
      ephemeral: true,
      envVar,
    });
    if (!process.env.TEST_DATABASE_URL) {
      // envVar: never a developer's DATABASE_URL; their data is no place for test databases.
      const postgres = await ensurePostgres(await throwAway(path.join(dir, "postgres"), "TEST_DATABASE_URL"));
      stops.push(postgres.stop);
      env.TEST_DATABASE_URL = postgres.adminUrl;
    }
    if (!process.env.REDIS_URL) {
      const redis = await ensureRedis(await throwAway(path.join(dir, "redis"), "TEST_REDIS_URL"));
      stops.push(redis.stop);
      env.REDIS_URL = redis.url;
    }
  }
  project.provide("throngTestEnv", env);
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
    await stopAllChildren();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  };
}
