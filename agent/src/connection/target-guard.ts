import type { RunAssignment } from "@throng/protocol/agent";
import { planTargetAddress, ruleMatches } from "@throng/protocol/target-rules";

/**
 * The agent's own allow-list (`--allow-target`), enforced whatever the server assigns: a rig's owner can
 * make sure it never loads anything but their servers. Null when the target is allowed (or no list is set),
 * else the reason the shard is refused.
 */
export function refusedTarget(assignment: RunAssignment, allowList: readonly string[]): string | null {
  if (allowList.length === 0) return null;
  const target = planTargetAddress(assignment.plan.target);
  if (allowList.some((rule) => ruleMatches(rule, target))) return null;
  return `target ${target.host}:${target.port} is not on this agent's --allow-target list (${allowList.join(", ")}); no load was generated`;
}
