import type { PointStages } from "@throng/core/metrics/ingest-stages";
import { createDb } from "@throng/db/client";
import { createRunQueue } from "@throng/runtime/jobs";
import { createLogger } from "@throng/runtime/logger";
import { createRedis } from "@throng/runtime/redis";
import { buildApp } from "./app";
import { composeApi, limitsFromEnv } from "./compose";
import { parseApiEnv } from "./env";

const env = parseApiEnv(process.env);
const log = createLogger("api", env.LOG_LEVEL);
const db = createDb(env.DATABASE_URL);
const redis = createRedis(env.REDIS_URL, "api");
const subscriberRedis = createRedis(env.REDIS_URL, "api-subscriber");
const { queue, jobs } = createRunQueue(createRedis(env.REDIS_URL, "api-queue"), env.QUEUE_PREFIX);

// At debug level every live point logs its stage times (bench/control-plane reads them); otherwise none are kept.
const onStages = log.isLevelEnabled("debug")
  ? (stages: PointStages) => log.debug({ stages }, "live point stages")
  : undefined;
const pdf = { chromiumPath: env.CHROMIUM_PATH, concurrency: env.PDF_RENDERS_MAX, timeoutMs: env.PDF_RENDER_TIMEOUT_MS };
const deps = composeApi({
  env,
  db,
  redis,
  subscriberRedis,
  jobs,
  log,
  onStages,
  queues: [queue],
  pdf,
  ...limitsFromEnv(env),
});
const { app } = await buildApp(deps, { logger: log });

async function shutdown(signal: string) {
  log.info({ signal }, "api stopping");
  await app.close();
  await deps.ingest.flush(); // merges still waiting in their coalescing window
  await queue.close();
  redis.disconnect();
  subscriberRedis.disconnect();
  await db.destroy();
  process.exit(0);
}
process.once("SIGINT", () => void shutdown("SIGINT"));
process.once("SIGTERM", () => void shutdown("SIGTERM"));

await app.listen({ host: env.API_HOST, port: env.API_PORT });
log.info({ url: env.API_PUBLIC_URL, web: env.WEB_ORIGIN }, "api ready");
log.info({ metricsToken: Boolean(env.METRICS_TOKEN), host: env.API_HOST }, deps.metrics.access.startLine);
