// Reads the shape of the protocol's zod schemas so the plan editor draws a control for every field the schema
// has: a scenario, transport or option added to packages/protocol/src/plan.ts shows up without web changes.
// Only the structure zod 4 exposes (`_zod.def`, `minValue`, ...) is read; the web does not import zod.

interface SchemaDef {
  type: string;
  innerType?: SchemaNode;
  in?: SchemaNode;
  defaultValue?: unknown;
  values?: readonly unknown[];
  entries?: Readonly<Record<string, string | number>>;
  options?: readonly SchemaNode[];
  discriminator?: string;
  element?: SchemaNode;
  keyType?: SchemaNode;
  valueType?: SchemaNode;
  checks?: readonly { _zod: { def: { check: string; minimum?: number; maximum?: number } } }[];
}

/** The slice of a zod 4 schema this module reads. */
export interface SchemaNode {
  _zod: { def: SchemaDef };
  shape?: Readonly<Record<string, SchemaNode>>;
  minValue?: number | null;
  maxValue?: number | null;
  isInt?: boolean;
}

/** One field of an object: its key, whether it must be given, and what it holds. */
export interface FieldSpec {
  key: string;
  required: boolean;
  defaultValue?: unknown;
  node: NodeSpec;
}

export interface VariantSpec {
  value: string;
  fields: FieldSpec[];
}

/** What a form control edits. */
export type NodeSpec =
  | { kind: "integer" | "number"; min?: number; max?: number }
  | { kind: "string" }
  | { kind: "boolean" }
  | { kind: "choice"; options: (string | number)[] }
  | { kind: "object"; fields: FieldSpec[] }
  | { kind: "union"; discriminator: string; variants: VariantSpec[] }
  /** A union of objects told apart by which key they hold (`{ regex }`, `{ prefixHex }`): `value` is that key. */
  | { kind: "keyed-union"; variants: VariantSpec[] }
  /** A string, number or boolean: typed as text, read as JSON when it is a number, true/false or "quoted". */
  | { kind: "scalar" }
  | { kind: "string-list" }
  | { kind: "number-list"; integer: boolean }
  /** name = value rows; with `scalarValues` a value reads as a number, true/false or "quoted" text as a scalar does. */
  | { kind: "string-record"; scalarValues?: boolean }
  | { kind: "object-list"; item: { kind: "object"; fields: FieldSpec[] }; minItems: number }
  /** An ordered list of a discriminated union's variants (session steps): add by kind, remove, reorder. */
  | { kind: "union-list"; item: Extract<NodeSpec, { kind: "union" }>; minItems: number; maxItems?: number }
  | { kind: "unsupported" };

const WRAPPERS = ["optional", "default", "prefault", "nullable", "readonly", "catch"];

function unwrap(node: SchemaNode): { node: SchemaNode; required: boolean; defaultValue?: unknown } {
  let current = node;
  let required = true;
  let defaultValue: unknown;
  for (;;) {
    const def = current._zod.def;
    if (def.type === "pipe" && def.in) {
      current = def.in;
      continue;
    }
    if (!def.innerType || !WRAPPERS.includes(def.type)) break;
    if (def.type !== "readonly") required = false;
    if (def.type === "default" || def.type === "prefault") defaultValue = def.defaultValue;
    current = def.innerType;
  }
  return defaultValue === undefined ? { node: current, required } : { node: current, required, defaultValue };
}

function literalOf(node: SchemaNode): string | number | undefined {
  const value = node._zod.def.type === "literal" ? node._zod.def.values?.[0] : undefined;
  return typeof value === "string" || typeof value === "number" ? value : undefined;
}

function minItems(node: SchemaNode): number {
  const check = node._zod.def.checks?.find((candidate) => candidate._zod.def.check === "min_length");
  return check?._zod.def.minimum ?? 0;
}

function maxItems(node: SchemaNode): number | undefined {
  const check = node._zod.def.checks?.find((candidate) => candidate._zod.def.check === "max_length");
  return check?._zod.def.maximum;
}

const SCALARS = ["string", "number", "boolean"];

/** A union of objects each with a required key no other option has, named by that key; else undefined. */
function keyedVariants(options: readonly SchemaNode[]): VariantSpec[] | undefined {
  if (options.length < 2 || !options.every((option) => option._zod.def.type === "object")) return undefined;
  const keySets = options.map((option) => Object.keys(option.shape ?? {}));
  const variants: VariantSpec[] = [];
  for (const [index, option] of options.entries()) {
    const fields = fieldsOf(option);
    const own = fields.find(
      (field) => field.required && keySets.every((keys, other) => other === index || !keys.includes(field.key)),
    );
    if (!own) return undefined;
    variants.push({ value: own.key, fields });
  }
  return variants;
}

function fieldsOf(node: SchemaNode, skip?: string): FieldSpec[] {
  return Object.entries(node.shape ?? {})
    .filter(([key]) => key !== skip)
    .map(([key, child]) => {
      const { node: inner, required, defaultValue } = unwrap(child);
      return { key, required, ...(defaultValue === undefined ? {} : { defaultValue }), node: describe(inner) };
    });
}

/** Describes any schema node as a form sees it; anything it cannot draw is "unsupported" (edited as text). */
export function describeNode(schema: unknown): NodeSpec {
  return describe(unwrap(schema as SchemaNode).node);
}

function describe(node: SchemaNode): NodeSpec {
  const def = node._zod.def;
  switch (def.type) {
    case "number": {
      const min = typeof node.minValue === "number" && Number.isFinite(node.minValue) ? { min: node.minValue } : {};
      const max = typeof node.maxValue === "number" && Number.isFinite(node.maxValue) ? { max: node.maxValue } : {};
      return { kind: node.isInt ? "integer" : "number", ...min, ...max };
    }
    case "string":
      return { kind: "string" };
    case "boolean":
      return { kind: "boolean" };
    case "enum":
      return { kind: "choice", options: Object.values(def.entries ?? {}) };
    case "object":
      return { kind: "object", fields: fieldsOf(node) };
    case "union": {
      const options = def.options ?? [];
      if (def.discriminator) {
        const discriminator = def.discriminator;
        const variants = options.map((option) => ({
          value: String(option.shape?.[discriminator] ? literalOf(unwrap(option.shape[discriminator]).node) : ""),
          fields: fieldsOf(option, discriminator),
        }));
        return { kind: "union", discriminator, variants };
      }
      const literals = options.map(literalOf);
      if (literals.every((value) => value !== undefined))
        return { kind: "choice", options: literals as (string | number)[] };
      // A list of names plus a pattern (an SLO's built-in metrics, or "script:NAME-p99"): the names are the choices,
      // and a value matching the pattern (written in the YAML view) is shown as one more.
      const named = options.filter((option) => unwrap(option).node._zod.def.type === "enum");
      if (
        named.length === 1 &&
        options.length === 2 &&
        options.some((option) => unwrap(option).node._zod.def.type === "template_literal")
      ) {
        return {
          kind: "choice",
          options: Object.values(unwrap(named[0]!).node._zod.def.entries ?? {}) as (string | number)[],
        };
      }
      if (options.every((option) => SCALARS.includes(unwrap(option).node._zod.def.type))) return { kind: "scalar" };
      const variants = keyedVariants(options);
      return variants ? { kind: "keyed-union", variants } : { kind: "unsupported" };
    }
    case "array": {
      const element = def.element ? unwrap(def.element).node : undefined;
      if (!element) return { kind: "unsupported" };
      if (element._zod.def.type === "string") return { kind: "string-list" };
      const item = describe(element);
      if (item.kind === "integer" || item.kind === "number")
        return { kind: "number-list", integer: item.kind === "integer" };
      if (item.kind === "union") {
        const max = maxItems(node);
        return { kind: "union-list", item, minItems: minItems(node), ...(max === undefined ? {} : { maxItems: max }) };
      }
      return item.kind === "object" ? { kind: "object-list", item, minItems: minItems(node) } : { kind: "unsupported" };
    }
    case "record": {
      const value = def.valueType ? unwrap(def.valueType).node : undefined;
      if (value?._zod.def.type === "string") return { kind: "string-record" };
      // A script's parameters: each value a string, number or boolean, typed as text like a scalar field.
      const scalars =
        value?._zod.def.type === "union" &&
        (value._zod.def.options ?? []).every((option) => SCALARS.includes(unwrap(option).node._zod.def.type));
      return scalars ? { kind: "string-record", scalarValues: true } : { kind: "unsupported" };
    }
    default:
      return { kind: "unsupported" };
  }
}
