import { z } from "zod";

/** BullMQ queue names; job payloads carry ids only. */
export const QUEUE_RUNS = "runs";

/** Enqueued by the API when a run is created: assign the load to agents. */
export const StartRunJob = z.object({ orgId: z.string(), runId: z.string().uuid() });
export type StartRunJob = z.infer<typeof StartRunJob>;

/** Enqueued (delayed) for the planned end plus grace, or when every shard reported: close the run. */
export const FinishRunJob = z.object({ orgId: z.string(), runId: z.string().uuid() });
export type FinishRunJob = z.infer<typeof FinishRunJob>;

export const RunJobName = { start: "start-run", finish: "finish-run" } as const;

/** Redis pub/sub channels between API instances and workers. */
export const Channel = {
  /** Commands for one agent, delivered by whichever API instance holds its socket. */
  agent: (agentId: string) => `throng:agent:${agentId}`,
  /** Live events for one run, fanned out to browsers by every API instance. */
  run: (runId: string) => `throng:run:${runId}`,
} as const;
