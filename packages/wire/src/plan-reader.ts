// The one plan reader: what a plan must be before any load, checked the same way by every channel that takes one —
// the API (save and start), `throng run` and `throng-agent run` (plan files), and the agent (its assignments). The
// schema (packages/protocol, zod only) says most of it; what a schema cannot say is here: the .proto compiles, every
// msgpack and protobuf body fits its type.
import { readFile } from "node:fs/promises";
import type { FieldError } from "@throng/protocol/errors";
import { checkPlanFile, PlanFileError } from "@throng/protocol/plan-file";
import type { PlanSpec } from "@throng/protocol/plan";
import { parse as parseYaml } from "yaml";
import { checkPlanCodecs } from "./codecs";

/**
 * What the schema cannot check of a valid plan: its codecs. Empty when they are fine, else the field (dotted path)
 * and what is wrong with it, in the API's field-error shape.
 */
export function planCodecIssues(plan: Pick<PlanSpec, "scenario" | "protobuf">): FieldError[] {
  try {
    checkPlanCodecs(plan);
    return [];
  } catch (error) {
    // checkPlanCodecs names the field first: "scenario.message.body.hp: message game.Move has no field…",
    // "protobuf.proto does not parse: …".
    const text = (error as Error).message;
    const field = /^[A-Za-z0-9_.[\]]+/.exec(text)?.[0] ?? "";
    return [{ path: field || "(plan)", message: text.slice(field.length).replace(/^:\s*/, "").trim() || text }];
  }
}

/** A parsed plan file's content checked with the schema and the codecs; throws PlanFileError naming `source` and every bad field. */
export function checkPlan(raw: unknown, source: string): PlanSpec {
  const plan = checkPlanFile(raw, source);
  const issues = planCodecIssues(plan);
  if (issues.length)
    throw new PlanFileError(
      `${source} is not a valid plan:\n${issues.map((issue) => `  ${issue.path}: ${issue.message}`).join("\n")}`,
    );
  return plan;
}

/** Parses plan text (YAML, of which JSON is a subset) and checks it. */
export function parsePlan(text: string, source: string): PlanSpec {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new PlanFileError(`${source} is not valid YAML or JSON: ${(error as Error).message}`);
  }
  return checkPlan(raw, source);
}

/** Reads and checks the plan file at `path`. */
export async function readPlanFile(path: string): Promise<PlanSpec> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new PlanFileError(
      `cannot read plan ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parsePlan(text, path);
}
