import type { AgentCapabilities } from "./agent";
import type { PlanSpec } from "./plan";
import { httpStepAddresses, planTargetAddress, ruleMatches } from "./target-rules";

/** The parts of a plan an agent's capabilities decide on. */
export type PlanNeeds = Pick<PlanSpec, "target" | "scenario">;

/**
 * Why an agent with `capabilities` would refuse `plan` at the start, with the flag that lets it (null: it would run
 * it, or it did not say what it allows, so only it can tell). The same rules the agent applies to an assignment
 * (agent/src/scripts/script-permission.ts, connection/target-guard.ts), checked before any run exists.
 */
export function capabilityRefusal(capabilities: AgentCapabilities | undefined, plan: PlanNeeds): string | null {
  if (!capabilities) return null;
  const { scenario } = plan;
  if (scenario.kind === "script") {
    if (capabilities.scripts === "none") return "does not run scripts (start it with --allow-scripts)";
    const script = scenario.script;
    if (
      capabilities.scripts !== "any" &&
      "sha256" in script &&
      !capabilities.scripts.sha256.includes(script.sha256.toLowerCase())
    ) {
      return `does not run script bundle ${script.sha256.slice(0, 12)}… (add it to --allow-scripts, or start it with --allow-scripts alone)`;
    }
  }
  const rules = capabilities.allowTargets;
  if (rules.length === 0) return null;
  const allowed = (address: { host: string; port: number }) => rules.some((rule) => ruleMatches(rule, address));
  const target = planTargetAddress(plan.target);
  if (!allowed(target))
    return `loads only ${rules.join(", ")} (its --allow-target list), not ${target.host}:${target.port}`;
  const step = httpStepAddresses(scenario).find((address) => !allowed(address));
  if (step)
    return `loads only ${rules.join(", ")} (its --allow-target list), not scenario.session[${step.index}]'s http step to ${step.host}:${step.port}`;
  return null;
}

/** "rig-7 does not run scripts (…); rig-8 loads only …": each agent named by its host name, for a refusal. */
export function capabilityRefusals(
  agents: readonly { hostname: string; capabilities?: AgentCapabilities | undefined }[],
  plan: PlanNeeds,
): string {
  return agents
    .map((agent) => ({ agent, refusal: capabilityRefusal(agent.capabilities, plan) }))
    .filter((each): each is { agent: (typeof agents)[number]; refusal: string } => each.refusal !== null)
    .map(({ agent, refusal }) => `${agent.hostname} ${refusal}`)
    .join("; ");
}

/** What an Agents page says an agent may run: "scripts: any · targets: any". */
export function capabilityWords(
  capabilities: AgentCapabilities | undefined,
): { scripts: string; targets: string } | null {
  if (!capabilities) return null;
  const { scripts, allowTargets } = capabilities;
  const scriptWords =
    scripts === "none"
      ? "no"
      : scripts === "any"
        ? "any"
        : `${scripts.sha256.length} bundle${scripts.sha256.length === 1 ? "" : "s"}`;
  return { scripts: scriptWords, targets: allowTargets.length ? allowTargets.join(", ") : "any" };
}
