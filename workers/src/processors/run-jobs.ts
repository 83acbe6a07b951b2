import type { Job } from "bullmq";
import type { z } from "zod";
import { parseOrThrow } from "@throng/protocol/errors";
import {
  CheckAgentJob,
  DeliverNotificationJob,
  ExportRunSeriesJob,
  FinishRunJob,
  RejudgeRunJob,
  RunJobName,
  ScheduledRunJob,
  SearchStepJob,
  StartRunJob,
  TestMetricsExportJob,
} from "@throng/protocol/jobs";
import type { PlanScheduleService } from "@throng/core/plans/plan-schedules";
import type { RunOrchestrator } from "@throng/core/runs/run-orchestrator";
import type { NotificationService } from "@throng/core/notifications/notification-service";
import type { MetricsExportService } from "@throng/core/metrics-export/metrics-export-service";

type RunJob = (typeof RunJobName)[keyof typeof RunJobName];

/** One job's handler: its payload parsed by its protocol schema (a bad one fails the job, naming it), then core. */
function parsed<T extends z.ZodType>(schema: T, handle: (payload: z.infer<T>, job: Job) => Promise<void>) {
  return (job: Job) => handle(parseOrThrow(schema, job.data, `${job.name} job`), job);
}

/** The runs queue's processor: validate the payload, make one core call. Every call is idempotent. */
export function createRunJobProcessor(
  orchestrator: RunOrchestrator,
  notifications: Pick<NotificationService, "deliver">,
  schedules: Pick<PlanScheduleService, "fire">,
  metricsExport: Pick<MetricsExportService, "runStarted" | "pushRun" | "test">,
) {
  const handlers: Record<RunJob, (job: Job) => Promise<void>> = {
    [RunJobName.start]: parsed(StartRunJob, async ({ orgId, runId }) => {
      await orchestrator.start(orgId, runId);
      return metricsExport.runStarted(orgId, runId);
    }),
    [RunJobName.finish]: parsed(FinishRunJob, ({ orgId, runId }) => orchestrator.finish(orgId, runId)),
    [RunJobName.rejudge]: parsed(RejudgeRunJob, ({ orgId, runId }) => orchestrator.judgeAgain(orgId, runId)),
    [RunJobName.checkAgent]: parsed(CheckAgentJob, ({ orgId, runId, agentId }) =>
      orchestrator.checkAgent(orgId, runId, agentId),
    ),
    [RunJobName.searchStep]: parsed(SearchStepJob, ({ orgId, runId, step, attempt }) =>
      orchestrator.searchStep(orgId, runId, step, attempt),
    ),
    // The queue retries a failed attempt; the last one records the delivery as failed for the log.
    [RunJobName.deliverNotification]: parsed(DeliverNotificationJob, ({ orgId, deliveryId }, job) =>
      notifications.deliver(orgId, deliveryId, job.attemptsMade + 1 >= (job.opts.attempts ?? 1)),
    ),
    [RunJobName.scheduledRun]: parsed(ScheduledRunJob, async ({ orgId, planId }) => {
      await schedules.fire(orgId, planId);
    }),
    [RunJobName.exportRunSeries]: parsed(ExportRunSeriesJob, ({ orgId, runId }) => metricsExport.pushRun(orgId, runId)),
    [RunJobName.testMetricsExport]: parsed(TestMetricsExportJob, ({ orgId, sink }) => metricsExport.test(orgId, sink)),
  };
  return async function processRunJob(job: Job): Promise<void> {
    if (!Object.hasOwn(handlers, job.name)) throw new Error(`Unknown job "${job.name}" on the runs queue`);
    return handlers[job.name as RunJob](job);
  };
}
