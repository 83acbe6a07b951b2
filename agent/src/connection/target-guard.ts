import type { RunAssignment } from "@throng/protocol/agent";
import { httpStepAddresses, planTargetAddress, ruleMatches } from "@throng/protocol/target-rules";

/**
 * The agent's own allow-list (`--allow-target`), enforced whatever the server assigns: a rig's owner can
 * make sure it never loads anything but their servers. The session's http steps (matchmaking, auth) must pass it
 * as the target does. Null when everything is allowed (or no list is set), else the reason the shard (or a session
 * trial, whose `outcome` says "nothing was sent") is refused.
 */
export function refusedTarget(
  assignment: Pick<RunAssignment, "plan">,
  allowList: readonly string[],
  outcome = "no load was generated",
): string | null {
  if (allowList.length === 0) return null;
  const allowed = (address: { host: string; port: number }) => allowList.some((rule) => ruleMatches(rule, address));
  const target = planTargetAddress(assignment.plan.target);
  if (!allowed(target))
    return `target ${target.host}:${target.port} is not on this agent's --allow-target list (${allowList.join(", ")}); ${outcome}`;
  for (const { index, ...address } of httpStepAddresses(assignment.plan.scenario)) {
    if (!allowed(address)) {
      return `scenario.session[${index}]: http step to ${address.host}:${address.port} is not on this agent's --allow-target list (${allowList.join(", ")}); ${outcome}`;
    }
  }
  return null;
}
