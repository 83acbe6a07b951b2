import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { PlanSpec } from "./plan";

/**
 * Plan files at the command-line boundaries (`throng-agent run plan.yaml`, `throng run plan.yaml`): read, parsed
 * as YAML (of which JSON is a subset) and validated with the same schema as the API, so a bad plan fails before
 * any load or request, naming the file and every bad field. One parser, so both commands read a file alike.
 */

/** A plan file that cannot be used; the message names the file and every bad field. */
export class PlanFileError extends Error {
  override name = "PlanFileError";
}

/** Readable lines for each schema issue: `load.clients: must be at least 1`. */
function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string[] {
  return issues.map((issue) => `  ${issue.path.map(String).join(".") || "(plan)"}: ${issue.message}`);
}

export function parsePlan(text: string, source: string): PlanSpec {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new PlanFileError(`${source} is not valid YAML or JSON: ${(error as Error).message}`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new PlanFileError(`${source} is not a plan: expected a mapping with name, target, scenario and load`);
  }
  const parsed = PlanSpec.safeParse(raw);
  if (!parsed.success) throw new PlanFileError(`${source} is not a valid plan:\n${describeIssues(parsed.error.issues).join("\n")}`);
  return parsed.data;
}

export async function readPlanFile(path: string): Promise<PlanSpec> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new PlanFileError(`cannot read plan ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parsePlan(text, path);
}
