import type {
  CheckAgentJob,
  DeliverNotificationJob,
  ExportRunSeriesJob,
  TestMetricsExportJob,
  ScheduledRunJob,
  SearchStepJob,
  FinishRunJob,
  RejudgeRunJob,
  StartRunJob,
} from "@throng/protocol/jobs";

/** What core needs from the outside world; adapters live in @throng/runtime, fakes only in unit tests. */
export interface Clock {
  now(): number;
}

export interface Log {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Redis pub/sub between processes; messages are JSON-serialisable. */
export interface Bus {
  publish(channel: string, message: unknown): Promise<void>;
  /** The next number of a shared counter (Redis INCR): orders live messages across instances. */
  sequence(key: string): Promise<number>;
}

/** BullMQ producers; each job id makes enqueueing idempotent. */
export interface Jobs {
  /** With `recheckInMs`: another look at a queued run later (its own job, so it is never a no-op). */
  startRun(job: StartRunJob, recheckInMs?: number): Promise<void>;
  finishRun(
    job: FinishRunJob,
    delayMs: number,
    reason: "planned-end" | "all-shards-done" | "after-abort",
  ): Promise<void>;
  /** A judgement again of a closed run that got seconds late: one per run every few seconds however often asked (debounced). */
  rejudgeRun(job: RejudgeRunJob): Promise<void>;
  checkAgent(job: CheckAgentJob, delayMs: number): Promise<void>;
  searchStep(job: SearchStepJob, delayMs: number): Promise<void>;
  /** Retried by the queue (with backoff) when the endpoint fails; the job's last attempt marks the delivery failed. */
  deliverNotification(job: DeliverNotificationJob): Promise<void>;
  /** A push of a run's series to the org's metrics sinks; `key` names it within the run (a repeated key is a no-op). */
  exportRunSeries(job: ExportRunSeriesJob, delayMs: number, key: string): Promise<void>;
  /** The settings page's test of a metrics sink. */
  testMetricsExport(job: TestMetricsExportJob): Promise<void>;
  /** Creates or replaces the plan's job scheduler: a scheduled-run job each time `cron` fires in `timezone`. */
  schedulePlan(job: ScheduledRunJob, cron: string, timezone: string): Promise<void>;
  unschedulePlan(planId: string): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now() };
