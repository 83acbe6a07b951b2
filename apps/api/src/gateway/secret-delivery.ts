import type { ServerToAgentMessage } from "@throng/protocol/agent";
import { redactTrialOutcome, type SessionTrialResult } from "@throng/protocol/session-trial";
import { redactErrorSample } from "@throng/protocol/error-samples";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { FastifyBaseLogger } from "fastify";
import type { OrgSecretService } from "@throng/core/orgs/org-secrets";

/**
 * One agent connection's side of organisation secrets (agent/PROTOCOL.md §14): a run assignment or a trial gets the
 * values its plan names as it leaves for the socket (they never travel through Redis), and a trial's answer has them
 * taken out again before it goes to the browser. Values are never logged; names are.
 */
export function createSecretDelivery(secrets: Pick<OrgSecretService, "valuesFor">, log: FastifyBaseLogger) {
  /** The values each trial in flight was given, to take out of its answer. */
  const trialValues = new Map<string, Record<string, string>>();
  /** The values each run's assignment was given on this socket, to take out of its error samples. */
  const runValues = new Map<string, Record<string, string>>();

  return {
    async fill(orgId: string, message: ServerToAgentMessage): Promise<ServerToAgentMessage> {
      if (message.type === "run-assignment" && message.payload.role !== "watch") {
        const { values, unavailable } = await secrets.valuesFor(orgId, message.payload.plan);
        if (Object.keys(values).length) runValues.set(message.payload.runId, values);
        if (unavailable.length)
          log.warn(
            { runId: message.payload.runId, missing: unavailable },
            "run assignment lacks secrets its plan names (deleted, or sealed with another key); the agent will refuse the shard",
          );
        return Object.keys(values).length ? { ...message, payload: { ...message.payload, secrets: values } } : message;
      }
      if (message.type === "session-trial") {
        const { values } = await secrets.valuesFor(orgId, message.payload.plan);
        if (!Object.keys(values).length) return message;
        trialValues.set(message.payload.trialId, values);
        return { ...message, payload: { ...message.payload, secrets: values } };
      }
      return message;
    },

    /** A snapshot whose error samples hold none of the values its run was given (an older agent would not have taken them out). */
    redactSnapshot(snapshot: MetricSnapshot): MetricSnapshot {
      const values = snapshot.errorSamples && runValues.get(snapshot.runId);
      return values
        ? { ...snapshot, errorSamples: snapshot.errorSamples!.map((sample) => redactErrorSample(sample, values)) }
        : snapshot;
    },

    /** The trial's answer without the values it was given (an older agent would not have taken them out). */
    redact(result: SessionTrialResult): SessionTrialResult {
      const values = trialValues.get(result.trialId);
      trialValues.delete(result.trialId);
      return values ? redactTrialOutcome(result, values) : result;
    },
  };
}
