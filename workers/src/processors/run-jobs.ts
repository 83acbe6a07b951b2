import type { Job } from "bullmq";
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

/** The runs queue's processor: validate the payload, make one core call. Every call is idempotent. */
export function createRunJobProcessor(
  orchestrator: RunOrchestrator,
  notifications: Pick<NotificationService, "deliver">,
  schedules: Pick<PlanScheduleService, "fire">,
  metricsExport: Pick<MetricsExportService, "runStarted" | "pushRun" | "test">,
) {
  return async function processRunJob(job: Job): Promise<void> {
    switch (job.name) {
      case RunJobName.start: {
        const { orgId, runId } = parseOrThrow(StartRunJob, job.data, "start-run job");
        await orchestrator.start(orgId, runId);
        return metricsExport.runStarted(orgId, runId);
      }
      case RunJobName.finish: {
        const { orgId, runId } = parseOrThrow(FinishRunJob, job.data, "finish-run job");
        return orchestrator.finish(orgId, runId);
      }
      case RunJobName.rejudge: {
        const { orgId, runId } = parseOrThrow(RejudgeRunJob, job.data, "rejudge-run job");
        return orchestrator.judgeAgain(orgId, runId);
      }
      case RunJobName.checkAgent: {
        const { orgId, runId, agentId } = parseOrThrow(CheckAgentJob, job.data, "check-agent job");
        return orchestrator.checkAgent(orgId, runId, agentId);
      }
      case RunJobName.searchStep: {
        const { orgId, runId, step, attempt } = parseOrThrow(SearchStepJob, job.data, "search-step job");
        return orchestrator.searchStep(orgId, runId, step, attempt);
      }
      case RunJobName.deliverNotification: {
        const { orgId, deliveryId } = parseOrThrow(DeliverNotificationJob, job.data, "deliver-notification job");
        // The queue retries a failed attempt; the last one records the delivery as failed for the log.
        return notifications.deliver(orgId, deliveryId, job.attemptsMade + 1 >= (job.opts.attempts ?? 1));
      }
      case RunJobName.scheduledRun: {
        const { orgId, planId } = parseOrThrow(ScheduledRunJob, job.data, "scheduled-run job");
        await schedules.fire(orgId, planId);
        return;
      }
      case RunJobName.exportRunSeries: {
        const { orgId, runId } = parseOrThrow(ExportRunSeriesJob, job.data, "export-run-series job");
        return metricsExport.pushRun(orgId, runId);
      }
      case RunJobName.testMetricsExport: {
        const { orgId, sink } = parseOrThrow(TestMetricsExportJob, job.data, "test-metrics-export job");
        return metricsExport.test(orgId, sink);
      }
      default:
        throw new Error(`Unknown job "${job.name}" on the runs queue`);
    }
  };
}
