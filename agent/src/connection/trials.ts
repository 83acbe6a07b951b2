import type { AgentToServerMessage } from "@throng/protocol/agent";
import type { PlanSpec } from "@throng/protocol/plan";
import { redactTrialOutcome, type SessionTrial, type TrialOutcome } from "@throng/protocol/session-trial";
import type { Logger } from "./logger";

/** How the agent runs a trial's one client (engine/session-trial.ts; `connect` holds it to --allow-target), with the secrets its plan names. */
export type RunTrial = (plan: PlanSpec, secrets?: Readonly<Record<string, string>>) => Promise<TrialOutcome>;

/**
 * Answers the server's session-trial messages (PROTOCOL.md §13). A trial is one client bounded by
 * TRIAL_TIME_LIMIT_MS, so it runs at once beside any shard; its answer goes out on whatever socket is up when it ends
 * (the API gives up on it after TRIAL_WAIT_MS).
 */
export function createTrialRunner(send: (message: AgentToServerMessage) => boolean, runTrial: RunTrial, log: Logger) {
  return {
    run({ trialId, plan, secrets }: SessionTrial): void {
      log.info(`trying the session of plan "${plan.name}" with one client (trial ${trialId})`);
      void runTrial(plan, secrets)
        .catch(
          (error: unknown): TrialOutcome =>
            redactTrialOutcome(
              { steps: [], error: `the trial failed on the agent: ${(error as Error).message}` },
              secrets ?? {},
            ),
        )
        .then((outcome) => {
          if (!send({ type: "session-trial-result", payload: { trialId, ...outcome } }))
            log.warn(`trial ${trialId} ended while disconnected; its result is lost`);
        });
    },
  };
}
