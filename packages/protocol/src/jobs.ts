import { z } from "zod";

/** BullMQ queue names; job payloads carry ids only. */
export const QUEUE_RUNS = "runs";

/** Enqueued by the API when a run is created: assign the load to agents. */
export const StartRunJob = z.object({ orgId: z.string(), runId: z.string().uuid() });
export type StartRunJob = z.infer<typeof StartRunJob>;

/** Enqueued (delayed) for the planned end plus grace, or when every shard reported: close the run. */
export const FinishRunJob = z.object({ orgId: z.string(), runId: z.string().uuid() });
export type FinishRunJob = z.infer<typeof FinishRunJob>;

/** Enqueued (delayed by the grace period) when an agent holding a shard disconnects: is it back, or lost? */
export const CheckAgentJob = z.object({ orgId: z.string(), runId: z.string().uuid(), agentId: z.string().uuid() });
export type CheckAgentJob = z.infer<typeof CheckAgentJob>;

/**
 * Enqueued (delayed, one per run per few seconds) when seconds or an agent's end of shard reach a run that has
 * already closed: judge it again from everything stored (summary, verdict, lost seconds), and say so.
 */
export const RejudgeRunJob = z.object({ orgId: z.string(), runId: z.string().uuid() });
export type RejudgeRunJob = z.infer<typeof RejudgeRunJob>;

/**
 * Enqueued (delayed) for just after an automatic capacity search's step ends: judge the step on every agent's
 * stored seconds and tell the agents the next level. `attempt` counts the waits for late snapshots.
 */
export const SearchStepJob = z.object({
  orgId: z.string(),
  runId: z.string().uuid(),
  step: z.number().int().min(0),
  attempt: z.number().int().min(0),
});
export type SearchStepJob = z.infer<typeof SearchStepJob>;

/** Enqueued when a run ends (one per channel that wants it) or by a channel's test button: send one notification. */
export const DeliverNotificationJob = z.object({ orgId: z.string(), deliveryId: z.string().uuid() });
export type DeliverNotificationJob = z.infer<typeof DeliverNotificationJob>;

/** Produced by a plan's BullMQ job scheduler at each time its cron schedule fires: start a run of the plan. */
export const ScheduledRunJob = z.object({ orgId: z.string(), planId: z.string().uuid() });
export type ScheduledRunJob = z.infer<typeof ScheduledRunJob>;

/**
 * Enqueued (delayed) when a run that exports its series starts, then again every few seconds while it runs, and
 * when it ends: push the run's settled seconds (and at the end its summary) to the org's metrics sinks.
 */
export const ExportRunSeriesJob = z.object({ orgId: z.string(), runId: z.string().uuid() });
export type ExportRunSeriesJob = z.infer<typeof ExportRunSeriesJob>;

/** Enqueued by the settings page's "Send test" button: push one test sample to the sink, record the outcome. */
export const TestMetricsExportJob = z.object({ orgId: z.string(), sink: z.enum(["prometheus", "otlp"]) });
export type TestMetricsExportJob = z.infer<typeof TestMetricsExportJob>;

export const RunJobName = {
  start: "start-run",
  finish: "finish-run",
  rejudge: "rejudge-run",
  checkAgent: "check-agent",
  searchStep: "search-step",
  deliverNotification: "deliver-notification",
  scheduledRun: "scheduled-run",
  exportRunSeries: "export-run-series",
  testMetricsExport: "test-metrics-export",
} as const;

/** Server-internal command to whichever API instance holds an agent's socket (never sent to the agent). */
export const AgentControl = z.object({ kind: z.literal("disconnect"), code: z.number().int(), reason: z.string() });
export type AgentControl = z.infer<typeof AgentControl>;

/** Redis pub/sub channels between API instances and workers. */
export const Channel = {
  /** Commands for one agent, delivered by whichever API instance holds its socket. */
  agent: (agentId: string) => `throng:agent:${agentId}`,
  /** Live events for one run, fanned out to browsers by every API instance. */
  run: (runId: string) => `throng:run:${runId}`,
  /** Commands for the gateway about one agent (revocation), not forwarded to it. */
  agentControl: (agentId: string) => `throng:agent-control:${agentId}`,
  /** A session trial's answer, from whichever API instance holds the agent's socket to the one waiting for it. */
  trial: (trialId: string) => `throng:trial:${trialId}`,
  /** Redis key numbering one run's live messages. */
  runSeqKey: (runId: string) => `throng:run-seq:${runId}`,
} as const;
