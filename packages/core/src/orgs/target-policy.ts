import { ThrongError } from "@throng/protocol/errors";
import type { OrgSettings } from "@throng/protocol/orgs";
import type { PlanSpec } from "@throng/protocol/plan";
import { httpStepAddress, httpStepAddresses, planTargetAddress, ruleMatches, targetAddress } from "@throng/protocol/target-rules";

export { httpStepAddress, planTargetAddress, ruleMatches, targetAddress };

/** Refuses a plan that leaves the org's allow-list or exceeds its caps, saying which and what to change. */
export function checkPlanAgainstSettings(spec: PlanSpec, settings: OrgSettings): void {
  const problems: { path: string; message: string }[] = [];
  const allowList = settings.targetAllowList;
  if (allowList.length > 0) {
    // The target, and every http step's URL (matchmaking, auth): the agents send requests there too.
    const addresses = [{ path: spec.target.protocol === "websocket" ? "target.url" : "target.host", address: planTargetAddress(spec.target) }];
    for (const { index, host, port } of httpStepAddresses(spec.scenario)) addresses.push({ path: `scenario.session.${index}.url`, address: { host, port } });
    for (const { path, address } of addresses) {
      if (allowList.some((rule) => ruleMatches(rule, address))) continue;
      problems.push({ path, message: `${address.host}:${address.port} is not on this organisation's target allow-list (${allowList.join(", ")}); an admin can add it under Settings` });
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
