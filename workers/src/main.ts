import { createDb } from "@throng/db/client";
import { createRepos } from "@throng/db/repos";
import { createRunQueue } from "@throng/runtime/jobs";
import { createLogger } from "@throng/runtime/logger";
import { createRedis } from "@throng/runtime/redis";
import { composeWorkers } from "./compose";
import { parseWorkersEnv } from "./env";
import { createWorkersMetrics, startMetricsServer } from "./metrics-server";
import { metricsAccess } from "@throng/runtime/metrics";

const env = parseWorkersEnv(process.env);
const log = createLogger("workers", env.LOG_LEVEL);
const db = createDb(env.DATABASE_URL);
const redis = createRedis(env.REDIS_URL, "workers");
const { queue, jobs } = createRunQueue(createRedis(env.REDIS_URL, "workers-queue"), env.QUEUE_PREFIX);
const { worker } = composeWorkers({
  db,
  redis,
  workerRedis: createRedis(env.REDIS_URL, "workers-worker"),
  jobs,
  log,
  prefix: env.QUEUE_PREFIX,
  concurrency: env.WORKER_CONCURRENCY,
  heartbeatIntervalMs: env.HEARTBEAT_INTERVAL_MS,
  dashboardUrl: env.WEB_ORIGIN,
  keys: { authSecret: env.AUTH_SECRET, metricsExportKey: env.METRICS_EXPORT_KEY },
});

// A heartbeat line so an operator (or a test) can see the worker is alive and what it is doing.
const heartbeat = setInterval(async () => {
  const counts = await queue.getJobCounts("waiting", "active", "delayed", "failed").catch(() => null);
  log.info({ running: worker.isRunning(), counts }, "workers heartbeat");
}, 30_000);

// GET /metrics and /health for Prometheus and probes (WORKERS_METRICS_PORT=0: none).
const repos = createRepos(db);
const access = metricsAccess(env.METRICS_TOKEN, env.WORKERS_METRICS_HOST);
const metricsServer =
  env.WORKERS_METRICS_PORT === 0
    ? null
    : await startMetricsServer({
        host: env.WORKERS_METRICS_HOST,
        port: env.WORKERS_METRICS_PORT,
        access,
        registry: createWorkersMetrics({ queues: [queue], worker }),
        health: { database: () => repos.ping(), redis: async () => void (await redis.ping()) },
      });

async function shutdown(signal: string) {
  log.info({ signal }, "workers stopping");
  clearInterval(heartbeat);
  metricsServer?.close();
  await worker.close();
  await queue.close();
  redis.disconnect();
  await db.destroy();
  process.exit(0);
}
process.once("SIGINT", () => void shutdown("SIGINT"));
process.once("SIGTERM", () => void shutdown("SIGTERM"));

await worker.waitUntilReady();
log.info(
  {
    queue: "runs",
    prefix: env.QUEUE_PREFIX,
    metrics: metricsServer ? `${env.WORKERS_METRICS_HOST}:${env.WORKERS_METRICS_PORT}` : "off",
  },
  "workers ready",
);
if (metricsServer)
  log.info({ metricsToken: Boolean(env.METRICS_TOKEN), host: env.WORKERS_METRICS_HOST }, access.startLine);
