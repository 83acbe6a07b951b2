import { ThrongError, type FieldError } from "@throng/protocol/errors";
import type { OrgSettings } from "@throng/protocol/orgs";
import type { PlanSpec } from "@throng/protocol/plan";
import {
  httpStepAddress,
  httpStepAddresses,
  planTargetAddress,
  ruleMatches,
  targetAddress,
} from "@throng/protocol/target-rules";

export { httpStepAddress, planTargetAddress, ruleMatches, targetAddress };

/** Where a plan sends traffic that the org's allow-list does not allow: its target, and every http step's URL. */
function targetProblems(spec: PlanSpec, allowList: readonly string[]): FieldError[] {
  if (allowList.length === 0) return [];
  // The target, and every http step's URL (matchmaking, auth): the agents send requests there too.
  const addresses = [
    {
      path: spec.target.protocol === "websocket" ? "target.url" : "target.host",
      address: planTargetAddress(spec.target),
    },
  ];
  for (const { index, host, port } of httpStepAddresses(spec.scenario))
    addresses.push({ path: `scenario.session.${index}.url`, address: { host, port } });
  return addresses
    .filter(({ address }) => !allowList.some((rule) => ruleMatches(rule, address)))
    .map(({ path, address }) => ({
      path,
      message: `${address.host}:${address.port} is not on this organisation's target allow-list (${allowList.join(", ")}); an admin can add it under Settings`,
    }));
}

function refuse(problems: FieldError[]): void {
  if (problems.length) {
    throw new ThrongError(
      "forbidden",
      `The plan breaks this organisation's limits (${problems[0]!.path}: ${problems[0]!.message})`,
      problems,
    );
  }
}

/** Refuses a plan whose traffic would leave the org's allow-list (a session trial: one client, so no caps apply). */
export function checkPlanTargets(spec: PlanSpec, settings: OrgSettings): void {
  refuse(targetProblems(spec, settings.targetAllowList));
}

/** Where a plan leaves the org's allow-list or exceeds its caps, by field, saying what to change; empty when it may run. */
export function settingsProblems(spec: PlanSpec, settings: OrgSettings): FieldError[] {
  const problems = targetProblems(spec, settings.targetAllowList);
  if (spec.load.clients > settings.maxClients) {
    problems.push({
      path: "load.clients",
      message: `exceeds this organisation's cap of ${settings.maxClients} clients; an admin can raise it under Settings`,
    });
  }
  if (spec.load.durationSec > settings.maxDurationSec) {
    problems.push({
      path: "load.durationSec",
      message: `exceeds this organisation's cap of ${settings.maxDurationSec} s; an admin can raise it under Settings`,
    });
  }
  return problems;
}

/** Refuses a plan that leaves the org's allow-list or exceeds its caps, saying which and what to change. */
export function checkPlanAgainstSettings(spec: PlanSpec, settings: OrgSettings): void {
  refuse(settingsProblems(spec, settings));
}
