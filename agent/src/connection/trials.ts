import type { AgentToServerMessage } from "@throng/protocol/agent";
import type { PlanSpec } from "@throng/protocol/plan";
import type { SessionTrial, TrialOutcome } from "@throng/protocol/session-trial";
import type { Logger } from "./logger";

/** How the agent runs a trial's one client (engine/session-trial.ts; `connect` holds it to --allow-target). */
export type RunTrial = (plan: PlanSpec) => Promise<TrialOutcome>;

/**
 * Answers the server's session-trial messages (PROTOCOL.md §13). A trial is one client bounded by
 * TRIAL_TIME_LIMIT_MS, so it runs at once beside any shard; its answer goes out on whatever socket is up when it ends
 * (the API gives up on it after TRIAL_WAIT_MS).
 */
export function createTrialRunner(send: (message: AgentToServerMessage) => boolean, runTrial: RunTrial, log: Logger) {
  return {
    run({ trialId, plan }: SessionTrial): void {
      log.info(`trying the session of plan "${plan.name}" with one client (trial ${trialId})`);
      void runTrial(plan)
        .catch((error: unknown): TrialOutcome => ({ steps: [], error: `the trial failed on the agent: ${(error as Error).message}` }))
        .then((outcome) => {
          if (!send({ type: "session-trial-result", payload: { trialId, ...outcome } })) log.warn(`trial ${trialId} ended while disconnected; its result is lost`);
        });
    },
  };
}
