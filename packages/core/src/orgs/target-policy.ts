import { ThrongError } from "@throng/protocol/errors";
import type { OrgSettings } from "@throng/protocol/orgs";
import type { PlanSpec } from "@throng/protocol/plan";
import { planTargetAddress, ruleMatches, targetAddress } from "@throng/protocol/target-rules";

export { planTargetAddress, ruleMatches, targetAddress };

/** host and port of a session http step's URL, as written (the schema allows placeholders only after the host). */
export function httpStepAddress(url: string): { host: string; port: number } {
  const parsed = new URL(url.replace(/\{\{[^}]*\}\}/g, "x"));
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
  return { host: parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase(), port };
}

/** Refuses a plan that leaves the org's allow-list or exceeds its caps, saying which and what to change. */
export function checkPlanAgainstSettings(spec: PlanSpec, settings: OrgSettings): void {
  const problems: { path: string; message: string }[] = [];
  const allowList = settings.targetAllowList;
  if (allowList.length > 0) {
    // The target, and every http step's URL (matchmaking, auth): the agents send requests there too.
    const addresses = [{ path: spec.target.protocol === "websocket" ? "target.url" : "target.host", address: planTargetAddress(spec.target) }];
    const steps = "session" in spec.scenario ? (spec.scenario.session ?? []) : [];
    steps.forEach((step, index) => {
      if (step.kind === "http") addresses.push({ path: `scenario.session.${index}.url`, address: httpStepAddress(step.url) });
    });
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
