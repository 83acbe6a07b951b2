import type { RunAssignment } from "@throng/protocol/agent";
import { planTargetAddress, ruleMatches } from "@throng/protocol/target-rules";

/** host and port of an http step's URL (its host is written out: the schema allows placeholders only after it). */
function httpAddress(url: string): { host: string; port: number } {
  const parsed = new URL(url.replace(/\{\{[^}]*\}\}/g, "x"));
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
  return { host: parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase(), port };
}

/**
 * The agent's own allow-list (`--allow-target`), enforced whatever the server assigns: a rig's owner can
 * make sure it never loads anything but their servers. The session's http steps (matchmaking, auth) must pass it
 * as the target does. Null when everything is allowed (or no list is set), else the reason the shard is refused.
 */
export function refusedTarget(assignment: RunAssignment, allowList: readonly string[]): string | null {
  if (allowList.length === 0) return null;
  const allowed = (address: { host: string; port: number }) => allowList.some((rule) => ruleMatches(rule, address));
  const target = planTargetAddress(assignment.plan.target);
  if (!allowed(target)) return `target ${target.host}:${target.port} is not on this agent's --allow-target list (${allowList.join(", ")}); no load was generated`;
  const { scenario } = assignment.plan;
  const steps = "session" in scenario ? (scenario.session ?? []) : [];
  for (const [index, step] of steps.entries()) {
    if (step.kind !== "http") continue;
    const address = httpAddress(step.url);
    if (!allowed(address)) {
      return `scenario.session[${index}]: http step to ${address.host}:${address.port} is not on this agent's --allow-target list (${allowList.join(", ")}); no load was generated`;
    }
  }
  return null;
}
