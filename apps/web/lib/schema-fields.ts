// Reads the shape of the protocol's zod schemas, so the plan editor draws a field for every field the
// schema has: a scenario or transport added to packages/protocol/src/plan.ts shows up without web changes.
// Only the structure zod 4 exposes (`_zod.def`, `minValue`, ...) is read; the web does not import zod.

interface SchemaDef {
  type: string;
  innerType?: SchemaNode;
  defaultValue?: unknown;
  values?: readonly unknown[];
  entries?: Readonly<Record<string, string | number>>;
  options?: readonly SchemaNode[];
  discriminator?: string;
}

/** The slice of a zod 4 schema this module reads. */
export interface SchemaNode {
  _zod: { def: SchemaDef };
  shape?: Readonly<Record<string, SchemaNode>>;
  minValue?: number | null;
  maxValue?: number | null;
  isInt?: boolean;
}

export type FieldKind = "integer" | "number" | "string" | "enum" | "boolean" | "record" | "unsupported";

/** One field of an object schema as a form sees it. */
export interface FieldSpec {
  key: string;
  kind: FieldKind;
  /** Neither optional nor defaulted: the user must give it. */
  required: boolean;
  defaultValue?: unknown;
  min?: number;
  max?: number;
  /** The choices of an enum. */
  options?: string[];
}

/** A discriminated union: which key tells the variants apart, and each variant's own fields. */
export interface UnionSpec {
  discriminator: string;
  variants: { value: string; fields: FieldSpec[] }[];
}

const asNode = (schema: unknown) => schema as SchemaNode;

function unwrap(node: SchemaNode): { node: SchemaNode; required: boolean; defaultValue?: unknown } {
  let current = node;
  let required = true;
  let defaultValue: unknown;
  for (;;) {
    const { type, innerType } = current._zod.def;
    if (!innerType || !["optional", "default", "prefault", "nullable", "readonly"].includes(type)) break;
    if (type === "optional" || type === "nullable") required = false;
    if (type === "default" || type === "prefault") {
      required = false;
      defaultValue = current._zod.def.defaultValue;
    }
    current = innerType;
  }
  return defaultValue === undefined ? { node: current, required } : { node: current, required, defaultValue };
}

function describeField(key: string, schema: SchemaNode): FieldSpec {
  const { node, required, defaultValue } = unwrap(schema);
  const def = node._zod.def;
  const base: FieldSpec = { key, kind: "unsupported", required, ...(defaultValue === undefined ? {} : { defaultValue }) };
  switch (def.type) {
    case "number": {
      const bounds = {
        ...(typeof node.minValue === "number" && Number.isFinite(node.minValue) ? { min: node.minValue } : {}),
        ...(typeof node.maxValue === "number" && Number.isFinite(node.maxValue) ? { max: node.maxValue } : {}),
      };
      return { ...base, ...bounds, kind: node.isInt ? "integer" : "number" };
    }
    case "string":
      return { ...base, kind: "string" };
    case "boolean":
      return { ...base, kind: "boolean" };
    case "enum":
      return { ...base, kind: "enum", options: Object.values(def.entries ?? {}).map(String) };
    case "record":
      return { ...base, kind: "record" };
    default:
      return base;
  }
}

/** The fields of an object schema, in declaration order, leaving out `skip` (a union's discriminator). */
export function describeObject(schema: unknown, skip?: string): FieldSpec[] {
  const shape = asNode(schema).shape ?? {};
  return Object.entries(shape)
    .filter(([key]) => key !== skip)
    .map(([key, node]) => describeField(key, node));
}

/** The variants of a discriminated union of object schemas, e.g. PlanSpec's `scenario` on `kind`. */
export function describeUnion(schema: unknown): UnionSpec {
  const def = asNode(schema)._zod.def;
  const discriminator = def.discriminator ?? "kind";
  const variants = (def.options ?? []).map((option) => {
    const tag = option.shape?.[discriminator]?._zod.def.values?.[0];
    return { value: String(tag), fields: describeObject(option, discriminator) };
  });
  return { discriminator, variants };
}

/** The schema inside `.optional()` / `.default()`: PlanSpec's `agents` is an optional object. */
export function innerSchema(schema: unknown): unknown {
  return unwrap(asNode(schema)).node;
}
