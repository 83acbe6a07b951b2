import type { z } from "zod";
import { JS_SPACE } from "@throng/protocol/js-space";

/**
 * Rules every request obeys that a zod schema's JSON Schema leaves out, added to each node of a request's schema in
 * the OpenAPI document (openapi.ts): without them a fuzzer's schema-valid request meets a 400 the document does not
 * explain (schemathesis's positive_data_acceptance check).
 */

type JsonNode = Record<string, unknown>;

/** Text PostgreSQL cannot store: route-input.ts refuses a NUL in any string, value or key, that a request keeps. */
const NUL = { pattern: "\\u0000" };
/** Only white space, as String.prototype.trim reads it. */
const BLANK = { pattern: `^[${JS_SPACE}]*$` };

/** `.trim()` is an overwrite check; the one that turns " x " into "x" is it. */
function trims(schema: z.core.$ZodType): boolean {
  const checks = (schema._zod.def as { checks?: z.core.$ZodCheck[] }).checks ?? [];
  return checks.some((check) => {
    const def = check._zod.def as { check: string; tx?: (value: unknown) => unknown };
    return def.check === "overwrite" && def.tx?.(" x ") === "x";
  });
}

/** Adds the rules to one node of a request's JSON Schema (zod's toJSONSchema `override`). */
export function addRequestRules(schema: z.core.$ZodType, node: JsonNode) {
  if (node.type === "string" && node.const === undefined && node.enum === undefined && node.format === undefined) {
    // `.trim().min(1)`: the length counts after trimming, so a blank string is refused though it is long enough.
    const blankRefused = trims(schema) && typeof node.minLength === "number" && node.minLength > 0;
    node.not = blankRefused ? { anyOf: [NUL, BLANK] } : NUL;
  }
  // A record's keys are stored too; an object with named properties strips (and so never stores) any others.
  if (node.type === "object" && typeof node.additionalProperties === "object") {
    node.propertyNames = { ...(node.propertyNames as JsonNode | undefined), not: NUL };
  }
}
