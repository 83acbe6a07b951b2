import { ThrongError } from "@throng/protocol/errors";
import type { PlanSpec } from "@throng/protocol/plan";
import { planCodecIssues } from "@throng/wire/plan-reader";

/**
 * Refuses a plan whose .proto does not compile or whose msgpack/protobuf bodies do not fit their types, with the same
 * check the CLIs and the agent run (@throng/wire/plan-reader): caught at save and at start, never on the rig.
 */
export function assertPlanCodecs(spec: PlanSpec, pathPrefix = ""): void {
  const issues = planCodecIssues(spec).map((issue) => ({ ...issue, path: `${pathPrefix}${issue.path}` }));
  if (issues[0])
    throw new ThrongError("validation_failed", `Invalid plan (${issues[0].path}: ${issues[0].message})`, issues);
}
