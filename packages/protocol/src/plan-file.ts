import { PlanSpec } from "./plan";

/**
 * What a plan file must hold, checked the same way at both command lines (`throng-agent run plan.yaml`,
 * `throng run plan.yaml`): each reads the file and parses its YAML (of which JSON is a subset), then hands the
 * value here, so a bad plan fails before any load or request, naming the file and every bad field. Reading and
 * YAML stay with the commands: this package is the schemas alone (zod only, browser-safe).
 */

/** A plan file that cannot be used; the message names the file and every bad field. */
export class PlanFileError extends Error {
  override name = "PlanFileError";
}

/** Readable lines for each schema issue: `load.clients: must be at least 1`. */
function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string[] {
  return issues.map((issue) => `  ${issue.path.map(String).join(".") || "(plan)"}: ${issue.message}`);
}

/** The parsed content of plan file `source`, checked with the plan schema; throws PlanFileError naming every bad field. */
export function checkPlanFile(raw: unknown, source: string): PlanSpec {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new PlanFileError(`${source} is not a plan: expected a mapping with name, target, scenario and load`);
  }
  const parsed = PlanSpec.safeParse(raw);
  if (!parsed.success)
    throw new PlanFileError(`${source} is not a valid plan:\n${describeIssues(parsed.error.issues).join("\n")}`);
  return parsed.data;
}
