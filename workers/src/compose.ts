import { DelayedError, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { QUEUE_RUNS } from "@throng/protocol/jobs";
import { ThrongError } from "@throng/protocol/errors";
import { createFleetService } from "@throng/core/fleet/fleet-service";
import { createAuditLog } from "@throng/core/orgs/audit";
import {
  createRunOrchestrator,
  DEFAULT_ORCHESTRATION,
  type OrchestratorConfig,
} from "@throng/core/runs/run-orchestrator";
import { systemClock, type Jobs, type Log } from "@throng/core/ports";
import type { Db } from "@throng/db/client";
import { createRepos } from "@throng/db/repos";
import { isDatabaseUnavailable } from "@throng/db/unavailable";
import { createBus } from "@throng/runtime/redis";
import { createNotificationService, type NotificationPost } from "@throng/core/notifications/notification-service";
import { createPlanScheduleService } from "@throng/core/plans/plan-schedules";
import { createRunService } from "@throng/core/runs/run-service";
import { createScriptService } from "@throng/core/scripts/script-service";
import { createMetricsExportService } from "@throng/core/metrics-export/metrics-export-service";
import { createSealer, credentialsKey, type Sealer } from "@throng/core/metrics-export/sealed-secrets";
import { createRunJobProcessor } from "./processors/run-jobs";
import { pushMetrics } from "./export/push-metrics";

/** A job that found the database unavailable runs again this much later. */
const DATABASE_RETRY_MS = 2_000;

/** Without the api's key the workers cannot open sink credentials: every push says what to set. */
function sealerFor(keys: { authSecret?: string; metricsExportKey?: string }): Sealer {
  if (keys.authSecret || keys.metricsExportKey)
    return createSealer(credentialsKey({ authSecret: keys.authSecret ?? "", dedicatedKey: keys.metricsExportKey }));
  const missing = () => {
    throw new Error(
      "the workers cannot open the endpoint's credentials: give them the api's AUTH_SECRET (or METRICS_EXPORT_KEY)",
    );
  };
  return { seal: missing, open: missing };
}

/** A notification is one JSON POST; an endpoint that takes longer than 10 s counts as down (and is retried). */
const postJson: NotificationPost = async (url, body) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": "throng-notifications" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
    redirect: "manual",
  });
  await response.body?.cancel();
  return { status: response.status };
};

/** Builds the runs worker; main.ts and the integration tests both call this. */
export function composeWorkers(input: {
  db: Db;
  redis: Redis;
  workerRedis: Redis;
  jobs: Jobs;
  log: Log;
  prefix: string;
  concurrency: number;
  heartbeatIntervalMs: number;
  orchestration?: OrchestratorConfig;
  /** The dashboard's address for run links in notifications (default http://localhost:3000). */
  dashboardUrl?: string;
  /** The api's AUTH_SECRET and METRICS_EXPORT_KEY: the key that opens metrics-export credentials. */
  keys?: { authSecret?: string; metricsExportKey?: string };
}) {
  const repos = createRepos(input.db);
  const audit = createAuditLog({ security: repos.security });
  const fleet = createFleetService({
    fleet: repos.fleet,
    bus: createBus(input.redis),
    clock: systemClock,
    audit,
    config: { apiPublicUrl: "", heartbeatIntervalMs: input.heartbeatIntervalMs },
  });
  const notifications = createNotificationService({
    repos,
    jobs: input.jobs,
    post: postJson,
    dashboardUrl: input.dashboardUrl ?? "http://localhost:3000",
  });
  const metricsExport = createMetricsExportService({
    repos,
    jobs: input.jobs,
    sealer: sealerFor(input.keys ?? {}),
    clock: systemClock,
    log: input.log,
    push: pushMetrics,
  });
  const orchestrator = createRunOrchestrator({
    repos,
    fleet,
    jobs: input.jobs,
    bus: createBus(input.redis),
    clock: systemClock,
    log: input.log,
    config: input.orchestration ?? DEFAULT_ORCHESTRATION,
    onRunEnded: async (orgId, runId) => {
      await notifications.runEnded(orgId, runId);
      await metricsExport.runEnded(orgId, runId);
    },
  });
  const runs = createRunService({
    repos,
    fleet,
    jobs: input.jobs,
    scripts: createScriptService({ scripts: repos.scripts }),
  });
  const schedules = createPlanScheduleService({
    repos,
    jobs: input.jobs,
    clock: systemClock,
    log: input.log,
    runs,
    audit,
    notifications,
  });
  const process = createRunJobProcessor(orchestrator, notifications, schedules, metricsExport);
  const worker = new Worker(
    QUEUE_RUNS,
    async (job, token) => {
      try {
        await process(job);
      } catch (err) {
        // A payload that fails validation will fail the same way every time: do not retry it.
        if (err instanceof ThrongError && err.code === "validation_failed") throw new UnrecoverableError(err.message);
        // PostgreSQL stopped or restarting: every job is idempotent, so it waits and runs again, for as long as the
        // outage lasts, without using up its attempts (five in seconds): an agent-lost check must not be dropped.
        if (isDatabaseUnavailable(err) && token) {
          input.log.warn(
            { jobId: job.id, name: job.name, retryInMs: DATABASE_RETRY_MS },
            "database unavailable; job waits and runs again",
          );
          await job.moveToDelayed(Date.now() + DATABASE_RETRY_MS, token);
          throw new DelayedError();
        }
        throw err;
      }
    },
    { connection: input.workerRedis, prefix: input.prefix, concurrency: input.concurrency },
  );
  worker.on("failed", (job, err) =>
    input.log.error({ jobId: job?.id, name: job?.name, err: err.message }, "job failed"),
  );
  worker.on("completed", (job) => input.log.info({ jobId: job.id, name: job.name }, "job done"));
  return { worker, orchestrator };
}
