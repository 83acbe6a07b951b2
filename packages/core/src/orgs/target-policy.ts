import { ThrongError } from "@throng/protocol/errors";
import type { OrgSettings } from "@throng/protocol/orgs";
import type { PlanSpec } from "@throng/protocol/plan";
import { planTargetAddress, ruleMatches, targetAddress } from "@throng/protocol/target-rules";

export { planTargetAddress, ruleMatches, targetAddress };

/** Refuses a plan that leaves the org's allow-list or exceeds its caps, saying which and what to change. */
export function checkPlanAgainstSettings(spec: PlanSpec, settings: OrgSettings): void {
  const problems: { path: string; message: string }[] = [];
  if (settings.targetAllowList.length > 0) {
    const target = planTargetAddress(spec.target);
    if (!settings.targetAllowList.some((rule) => ruleMatches(rule, target))) {
      problems.push({
        path: spec.target.protocol === "websocket" ? "target.url" : "target.host",
        message: `${target.host}:${target.port} is not on this organisation's target allow-list (${settings.targetAllowList.join(", ")}); an admin can add it under Settings`,
      });
    }
  }
  if (spec.load.clients > settings.maxClients) {
    problems.push({ path: "load.clients", message: `exceeds this organisation's cap of ${settings.maxClients} clients` });
  }
  if (spec.load.durationSec > settings.maxDurationSec) {
    problems.push({ path: "load.durationSec", message: `exceeds this organisation's cap of ${settings.maxDurationSec} s` });
  }
  if (problems.length) {
    throw new ThrongError("forbidden", `The plan breaks this organisation's limits (${problems[0]!.path}: ${problems[0]!.message})`, problems);
  }
}
