import { readFile } from "node:fs/promises";
import { checkPlanFile, PlanFileError } from "@throng/protocol/plan-file";
import type { PlanSpec } from "@throng/protocol/plan";
import { parse as parseYaml } from "yaml";
import { checkPlanCodecs } from "../scenarios/codecs";

/** Parses plan text (YAML, of which JSON is a subset) and checks it with the shared plan-file check. */
export function parsePlan(text: string, source: string): PlanSpec {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new PlanFileError(`${source} is not valid YAML or JSON: ${(error as Error).message}`);
  }
  const plan = checkPlanFile(raw, source);
  // What the zod-only schema cannot check: the .proto parses and every msgpack/protobuf body fits its type.
  try {
    checkPlanCodecs(plan);
  } catch (error) {
    throw new PlanFileError(`${source} is not a valid plan:\n  ${(error as Error).message}`);
  }
  return plan;
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
