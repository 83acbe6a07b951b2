import { UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { QUEUE_RUNS } from "@throng/protocol/jobs";
import { ThrongError } from "@throng/protocol/errors";
import { createFleetService } from "@throng/core/fleet/fleet-service";
import { createAuditLog } from "@throng/core/orgs/audit";
import { createRunOrchestrator, DEFAULT_ORCHESTRATION, type OrchestratorConfig } from "@throng/core/runs/run-orchestrator";
import { systemClock, type Jobs, type Log } from "@throng/core/ports";
import type { Db } from "@throng/db/client";
import { createRepos } from "@throng/db/repos";
import { createBus } from "@throng/runtime/redis";
import { createRunJobProcessor } from "./processors/run-jobs";

/** Builds the runs worker; main.ts and the integration tests both call this. */
export function composeWorkers(input: {
  db: Db; redis: Redis; workerRedis: Redis; jobs: Jobs; log: Log;
  prefix: string; concurrency: number; heartbeatIntervalMs: number; orchestration?: OrchestratorConfig;
}) {
  const repos = createRepos(input.db);
  const audit = createAuditLog({ security: repos.security });
  const fleet = createFleetService({ fleet: repos.fleet, bus: createBus(input.redis), clock: systemClock, audit, config: { apiPublicUrl: "", heartbeatIntervalMs: input.heartbeatIntervalMs } });
  const orchestrator = createRunOrchestrator({
    repos, fleet, jobs: input.jobs, bus: createBus(input.redis), clock: systemClock, log: input.log,
    config: input.orchestration ?? DEFAULT_ORCHESTRATION,
  });
  const process = createRunJobProcessor(orchestrator);
  const worker = new Worker(
    QUEUE_RUNS,
    async (job) => {
      try {
        await process(job);
      } catch (err) {
        // A payload that fails validation will fail the same way every time: do not retry it.
        if (err instanceof ThrongError && err.code === "validation_failed") throw new UnrecoverableError(err.message);
        throw err;
      }
    },
    { connection: input.workerRedis, prefix: input.prefix, concurrency: input.concurrency },
  );
  worker.on("failed", (job, err) => input.log.error({ jobId: job?.id, name: job?.name, err: err.message }, "job failed"));
  worker.on("completed", (job) => input.log.info({ jobId: job.id, name: job.name }, "job done"));
  return { worker, orchestrator };
}
