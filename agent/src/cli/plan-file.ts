import { readFile } from "node:fs/promises";
import { PlanSpec } from "@throng/protocol/plan";
import { parse as parseYaml } from "yaml";

/** A plan file that cannot be used; the message names the file and every bad field. */
export class PlanFileError extends Error {}

/** Readable lines for each schema issue: `scenario.intervalMs: must be at least 10 ms`. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string[] {
  return issues.map((issue) => `  ${issue.path.map(String).join(".") || "(plan)"}: ${issue.message}`);
}

/** Parses plan text (YAML, of which JSON is a subset) and validates it with the shared plan schema. */
export function parsePlan(text: string, source: string): PlanSpec {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new PlanFileError(`${source} is not valid YAML or JSON: ${(error as Error).message}`);
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
