import type { AgentView } from "@throng/protocol/api";
import { ThrongError } from "@throng/protocol/errors";
import { Channel } from "@throng/protocol/jobs";
import { OrgSettings } from "@throng/protocol/orgs";
import { SessionTrialResult, TRIAL_WAIT_MS, type TryPlan, type TrialView } from "@throng/protocol/session-trial";
import type { Repos } from "@throng/db/repos";
import type { FleetService } from "../fleet/fleet-service";
import { authorize, type Actor } from "../orgs/permissions";
import { assertPlanCodecs } from "./plan-codecs";
import { checkPlanTargets } from "../orgs/target-policy";
import { assertPlanSecretsExist } from "../orgs/org-secrets";
import type { Bus } from "../ports";

/**
 * Waits for one message on a bus channel: subscribed before `send` runs, so an answer cannot slip past; undefined
 * after `timeoutMs`. The API implements it with Redis pub/sub, since the agent may be connected to another instance.
 */
export type AwaitReply = (channel: string, timeoutMs: number, send: () => Promise<void>) => Promise<unknown>;

/** What the gateway publishes on Channel.trial: the answering agent, checked against the one the trial went to. */
interface TrialAnswer {
  agentId: string;
  result: SessionTrialResult;
}

export const NO_TRIAL_AGENT =
  "No load agent is online to try the session from: start one on a machine that can reach the target " +
  "(Agents → Install an agent gives the command that runs throng-agent connect with an enrolment token), then try again";

/** The agent a trial runs on: the one asked for, else an online load agent (idle before busy, the plan's labels first). */
export function pickAgent(
  agents: readonly AgentView[],
  agentId: string | undefined,
  labels: Record<string, string> | undefined,
): AgentView {
  if (agentId) {
    const agent = agents.find((a) => a.id === agentId);
    if (!agent) throw new ThrongError("not_found", `No agent ${agentId} in this organisation`);
    if (agent.role === "watch")
      throw new ThrongError(
        "validation_failed",
        `Agent ${agent.hostname} is a watcher, which sends no traffic: pick a load agent`,
        [{ path: "agentId", message: "is a watcher" }],
      );
    if (agent.status === "offline")
      throw new ThrongError(
        "no_agent_online",
        `Agent ${agent.hostname} is offline: start it again (throng-agent connect on its machine), or leave the agent out to use any online one`,
      );
    return agent;
  }
  const matches = (a: AgentView) => Object.entries(labels ?? {}).every(([key, value]) => a.labels[key] === value);
  const online = agents.filter((a) => a.status !== "offline" && a.role !== "watch");
  const ranked = [...online].sort(
    (a, b) =>
      Number(matches(b)) - Number(matches(a)) ||
      Number(a.status === "busy") - Number(b.status === "busy") ||
      a.id.localeCompare(b.id),
  );
  if (!ranked[0]) throw new ThrongError("no_agent_online", NO_TRIAL_AGENT);
  return ranked[0];
}

/**
 * Session trials (agent/PROTOCOL.md §13): one client of an unsaved plan runs its connect and session steps from an
 * online agent of the org, and the API answers with each step's bytes and outcome.
 */
export function createSessionTrials(deps: {
  repos: Repos;
  fleet: FleetService;
  bus: Bus;
  awaitReply: AwaitReply;
  waitMs?: number;
}) {
  const { repos, fleet, bus, awaitReply } = deps;
  const waitMs = deps.waitMs ?? TRIAL_WAIT_MS;
  return {
    /** Sends the trial to an agent (through whichever API instance holds its socket) and waits for its answer. */
    async run(actor: Actor, input: TryPlan): Promise<TrialView> {
      // It sends traffic to the target, as a run does.
      authorize(actor, "run.start");
      const { orgId } = actor;
      const { spec, agentId } = input;
      if (spec.scenario.kind === "script") {
        throw new ThrongError(
          "validation_failed",
          "A script scenario's clients are code, not session steps: there is nothing to try; run the plan with a few clients instead",
          [{ path: "spec.scenario.kind", message: "has no session steps" }],
        );
      }
      checkPlanTargets(spec, OrgSettings.parse((await repos.orgs.getSettings(orgId)) ?? {}));
      assertPlanCodecs(spec, "spec.");
      await assertPlanSecretsExist(repos.secrets, orgId, spec, "save", "spec.");
      const agent = pickAgent(await fleet.listAgents(orgId), agentId, spec.agents?.labels);
      const trialId = crypto.randomUUID();
      const answer = (await awaitReply(Channel.trial(trialId), waitMs, () =>
        bus.publish(Channel.agent(agent.id), { type: "session-trial", payload: { trialId, plan: spec } }),
      )) as TrialAnswer | undefined;
      if (!answer || answer.agentId !== agent.id) {
        throw new ThrongError(
          "timeout",
          `Agent ${agent.hostname} did not answer the trial within ${Math.round(waitMs / 1000)} s: its connection may have dropped or it runs an older throng-agent without trials; check it on the Agents page and try again`,
        );
      }
      const { trialId: _, ...outcome } = SessionTrialResult.parse(answer.result);
      return { agentId: agent.id, agentHostname: agent.hostname, ...outcome };
    },

    /** The gateway got an agent's answer: hand it to whichever instance waits for it. */
    async answered(agentId: string, result: SessionTrialResult): Promise<void> {
      await bus.publish(Channel.trial(result.trialId), { agentId, result } satisfies TrialAnswer);
    },
  };
}
export type SessionTrials = ReturnType<typeof createSessionTrials>;
