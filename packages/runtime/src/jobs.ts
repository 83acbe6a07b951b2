import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { QUEUE_RUNS, RunJobName } from "@throng/protocol/jobs";
import type { Jobs } from "@throng/core/ports";

/** How often a notification is tried before its delivery is marked failed (the processor reads it too). */
export const NOTIFY_ATTEMPTS = 5;

/** Late seconds of a closed run within this long are judged together. */
const REJUDGE_WINDOW_MS = 2_000;

/** The BullMQ job scheduler of one plan's schedule. */
export const scheduleId = (planId: string) => `plan-schedule-${planId}`;

/** BullMQ producer for the runs queue; job ids make a repeated enqueue a no-op. */
export function createRunQueue(connection: Redis, prefix: string, options: { notifyBackoffMs?: number } = {}) {
  const queue = new Queue(QUEUE_RUNS, {
    connection,
    prefix,
    defaultJobOptions: {
      attempts: 5,
      backoff: { type: "exponential", delay: 500 },
      removeOnComplete: 1000,
      removeOnFail: 5000,
    },
  });
  const jobs: Jobs = {
    async startRun(job, recheckInMs) {
      if (recheckInMs === undefined) await queue.add(RunJobName.start, job, { jobId: `start-${job.runId}` });
      // One pending look per run per interval: whoever asks within it (the run's own last look, a run that ended) shares it.
      else
        await queue.add(RunJobName.start, job, {
          jobId: `start-${job.runId}-recheck-${Math.ceil((Date.now() + recheckInMs) / recheckInMs)}`,
          delay: recheckInMs,
        });
    },
    async finishRun(job, delayMs, reason) {
      await queue.add(RunJobName.finish, job, { jobId: `finish-${reason}-${job.runId}`, delay: delayMs });
    },
    async rejudgeRun(job) {
      // Debounced: every late second of one window (an agent re-sending what it buffered) shares one judgement at
      // the window's end; one arriving after it gets the next. Judging again is idempotent.
      const bucket = Math.ceil((Date.now() + REJUDGE_WINDOW_MS) / REJUDGE_WINDOW_MS);
      await queue.add(RunJobName.rejudge, job, { jobId: `rejudge-${job.runId}-${bucket}`, delay: REJUDGE_WINDOW_MS });
    },
    async checkAgent(job, delayMs) {
      // One check per disconnect: the time makes each one distinct, the check itself is idempotent.
      await queue.add(RunJobName.checkAgent, job, {
        jobId: `check-agent-${job.runId}-${job.agentId}-${Date.now()}`,
        delay: delayMs,
      });
    },
    async deliverNotification(job) {
      // Its own retry policy: an endpoint that is down gets five tries over about a minute, then the log says failed.
      await queue.add(RunJobName.deliverNotification, job, {
        jobId: `notify-${job.deliveryId}`,
        attempts: NOTIFY_ATTEMPTS,
        backoff: { type: "exponential", delay: options.notifyBackoffMs ?? 2000 },
      });
    },
    async exportRunSeries(job, delayMs, key) {
      // The key makes a repeated enqueue (a start job run twice, two pushes queueing the same tick) a no-op; the
      // watermark makes a push of seconds already sent one too. An ended run's failed push is retried with backoff.
      await queue.add(RunJobName.exportRunSeries, job, {
        jobId: `export-${job.runId}-${key}`,
        delay: delayMs,
        attempts: 4,
        backoff: { type: "exponential", delay: 2000 },
      });
    },
    async testMetricsExport(job) {
      await queue.add(RunJobName.testMetricsExport, job, {
        jobId: `export-test-${job.orgId}-${job.sink}-${Date.now()}`,
        attempts: 1,
      });
    },
    async schedulePlan(job, cron, timezone) {
      await queue.upsertJobScheduler(
        scheduleId(job.planId),
        { pattern: cron, tz: timezone },
        { name: RunJobName.scheduledRun, data: job },
      );
    },
    async unschedulePlan(planId) {
      await queue.removeJobScheduler(scheduleId(planId));
    },
    async searchStep(job, delayMs) {
      // One job per step and attempt: a repeated enqueue of the same wait is a no-op, the judging is idempotent.
      await queue.add(RunJobName.searchStep, job, {
        jobId: `search-step-${job.runId}-${job.step}-${job.attempt}`,
        delay: delayMs,
      });
    },
  };
  return { queue, jobs };
}
