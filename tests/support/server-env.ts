import { randomBytes } from "node:crypto";
import { createTestDatabase, uniquePrefix } from "@throng/db/testing";
import type { ServerEnv } from "../fault/support/processes";

/**
 * What one test file's api and workers processes share: a fresh database (its drop pushed to `cleanups`), the test
 * Redis, and a queue prefix and auth secret of their own; `heartbeatMs` shortens the agents' heartbeats.
 */
export async function freshServerEnv(
  cleanups: (() => Promise<unknown>)[],
  options: { heartbeatMs?: number } = {},
): Promise<ServerEnv> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  return {
    databaseUrl: database.url,
    redisUrl: process.env.REDIS_URL!,
    queuePrefix: uniquePrefix(),
    authSecret: randomBytes(32).toString("base64url"),
    ...options,
  };
}
