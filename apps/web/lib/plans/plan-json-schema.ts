// The plan's JSON Schema for the YAML and JSON editors' completion and hover: made from the same zod PlanSpec the API checks,
// each property described by the form's own label, unit and hint, so hovering a key says what the form says.
import { PlanSpec } from "@throng/protocol/plan";
import { z } from "zod";
import { fieldText } from "./plan-field-text";
import { childKey } from "./schema-form";

type SchemaObject = { [key: string]: unknown };
const isObject = (value: unknown): value is SchemaObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const SECTIONS: Record<string, string> = { slos: "SLOs" };

/** A union variant's tag (`ping-pong` of scenario.kind): the one-value enum of a required property. */
function variantTag(variant: SchemaObject): string | undefined {
  const properties = isObject(variant.properties) ? variant.properties : {};
  const required = Array.isArray(variant.required) ? (variant.required as string[]) : [];
  for (const key of required) {
    const values = (properties[key] as SchemaObject | undefined)?.enum;
    if (Array.isArray(values) && values.length === 1 && typeof values[0] === "string") return values[0];
  }
  return undefined;
}

function describe(schema: SchemaObject, textKey: string, variants: readonly string[]): void {
  for (const union of ["oneOf", "anyOf"] as const) {
    const options = schema[union];
    if (!Array.isArray(options)) continue;
    for (const option of options.filter(isObject)) {
      const tag = variantTag(option);
      describe(option, tag ? `${textKey}.${tag}` : textKey, tag ? [...variants, tag] : variants);
    }
  }
  if (isObject(schema.items)) describe(schema.items, textKey, variants);
  if (isObject(schema.additionalProperties)) describe(schema.additionalProperties, textKey, variants);
  if (!isObject(schema.properties)) return;
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!isObject(property)) continue;
    const childTextKey = childKey(textKey, key);
    const text = fieldText(childTextKey, variants);
    const label = SECTIONS[childTextKey] ?? text.label;
    property.description = [`**${label}**${text.unit ? ` (${text.unit})` : ""}`, text.hint].filter(Boolean).join(" — ");
    describe(property, childTextKey, variants);
  }
}

/** Draft 4, the dialect codemirror-json-schema's validator library reads; the form's words as descriptions. */
export function planJsonSchema(): SchemaObject {
  const schema = z.toJSONSchema(PlanSpec, { target: "draft-04", io: "input", unrepresentable: "any" }) as SchemaObject;
  describe(schema, "", []);
  return schema;
}
