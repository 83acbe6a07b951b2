import pino from "pino";
import type { Redis } from "ioredis";
import { createDb, type Db } from "@throng/db/client";
import { createRepos, type Repos } from "@throng/db/repos";
import { createTestDatabase, uniquePrefix } from "@throng/db/testing";
import { createRunQueue } from "@throng/runtime/jobs";
import { createRedis } from "@throng/runtime/redis";
import { composeWorkers } from "./compose";

/** The workers as main.ts composes them, on a fresh database and the test Redis, for the processors' integration tests. */
export interface WorkersBed {
  db: Db;
  repos: Repos;
  /** The connection the workers publish on (the bus). */
  busRedis: Redis;
  runQueue: ReturnType<typeof createRunQueue>;
  workers: ReturnType<typeof composeWorkers>;
  stop(): Promise<void>;
}

/**
 * Starts the workers with short orchestration waits (runs start 50 ms after the job, close 200 ms after their end, an
 * agent is lost after 300 ms of silence); `redisName` prefixes the Redis client names, `notifyBackoffMs` shortens the
 * notification retries.
 */
export async function startWorkersBed(options: {
  redisName: string;
  notifyBackoffMs?: number;
  dashboardUrl?: string;
}): Promise<WorkersBed> {
  const database = await createTestDatabase();
  const db = createDb(database.url, { max: 5 });
  const url = process.env.REDIS_URL!;
  const [busRedis, workerRedis, queueRedis] = ["bus", "worker", "queue"].map((role) =>
    createRedis(url, `${options.redisName}-${role}`),
  ) as [Redis, Redis, Redis];
  const prefix = uniquePrefix();
  const runQueue = createRunQueue(queueRedis, prefix, { notifyBackoffMs: options.notifyBackoffMs });
  const workers = composeWorkers({
    db,
    redis: busRedis,
    workerRedis,
    jobs: runQueue.jobs,
    log: pino({ level: "silent" }),
    prefix,
    concurrency: 2,
    heartbeatIntervalMs: 60_000,
    orchestration: { startDelayMs: 50, finishGraceMs: 200, agentLostGraceMs: 300 },
    dashboardUrl: options.dashboardUrl,
  });
  return {
    db,
    repos: createRepos(db),
    busRedis,
    runQueue,
    workers,
    async stop() {
      await workers.worker.close();
      await runQueue.queue.close();
      for (const connection of [busRedis, workerRedis, queueRedis]) connection.disconnect();
      await db.destroy();
      await database.drop();
    },
  };
}
