// A form's working copy of a schema-described value. Leaves are kept as typed (strings), so "1e" or "" survive
// until saved; `toInput` turns the copy into what the schema parses, `fromInput` reads any plan-like value back.
import { labelRow, rowsFromLabels, type LabelRow } from "../shared/labels";
import type { FieldSpec, NodeSpec, VariantSpec } from "./schema-node";

/** Numbers, strings, choices and optional booleans as text; records as label rows; objects and lists nested. */
export type DraftValue = string | boolean | LabelRow[] | DraftObject | DraftObject[] | undefined | unknown;
export type DraftObject = { [key: string]: DraftValue };

/** Values a new plan starts with where the schema gives none; keyed by text key (`section.variant.key`). */
export const STARTING_VALUES: Record<string, string> = {
  "target.websocket.url": "ws://127.0.0.1:7070/ws",
  "target.tcp.host": "127.0.0.1",
  "target.tcp.port": "7071",
  // A framing from the start (the reference target's own, a 2-byte length prefix), so a new TCP plan saves as it is;
  // a delimiter framing starts at "\n".
  "target.tcp.framing": "length-prefix",
  "target.tcp.framing.length-prefix.headerBytes": "2",
  "target.tcp.framing.delimiter.delimiterHex": "0a",
  "target.kcp.framing.delimiter.delimiterHex": "0a",
  "target.udp.host": "127.0.0.1",
  "target.udp.port": "7072",
  "target.kcp.host": "127.0.0.1",
  "target.kcp.port": "7400",
  "scenario.ping-pong.intervalMs": "1000",
  "scenario.ping-pong.messageBytes": "64",
  "scenario.echo-flood.messageBytes": "64",
  "scenario.movement-sync.roomSize": "10",
  "load.clients": "100",
  "load.durationSec": "30",
  // A new network cohort: a tenth of the clients on a slower link, so it does something until it is edited.
  "network.share": "0.1",
  "network.delayMs": "50",
};

/** The key field text and starting values are looked up by: the path without list indices, with union variants. */
export const childKey = (parent: string, key: string, variant?: string) =>
  [parent, variant, key].filter(Boolean).join(".");

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

type UnionNode = Extract<NodeSpec, { kind: "union" | "keyed-union" }>;

/** The variant a value is: by its discriminator, or for a keyed union by the key it holds. */
export function variantFor(node: UnionNode, value: unknown): VariantSpec | undefined {
  if (!isObject(value)) return undefined;
  if (node.kind === "keyed-union") return node.variants.find((variant) => variant.value in value);
  const tag = String(value[node.discriminator] ?? "");
  return node.variants.find((variant) => variant.value === tag);
}

/** Text in a string-or-number-or-boolean box as the schema reads it: 5, true and "quoted" as JSON, the rest as typed. */
export function scalarFromText(text: string): string | number | boolean | undefined {
  if (text.trim() === "") return undefined;
  try {
    const parsed: unknown = JSON.parse(text.trim());
    if (typeof parsed === "number" || typeof parsed === "boolean" || typeof parsed === "string") return parsed;
  } catch {
    // Not JSON: plain text.
  }
  return text;
}

function scalarToText(value: unknown): unknown {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  // A string that would read back as something else ("5", "true", "\"x\"") is shown quoted.
  if (typeof value === "string") return scalarFromText(value) === value ? value : JSON.stringify(value);
  return value;
}

/** A list of union items with one item moved from `from` to `to` (the reorder buttons of a step list). */
export function moveItem<T>(items: readonly T[], from: number, to: number): T[] {
  if (to < 0 || to >= items.length || from === to) return [...items];
  const next = [...items];
  const [moved] = next.splice(from, 1);
  next.splice(to, 0, moved as T);
  return next;
}

/** A fresh value for a node the user must fill (or has just switched on). */
export function initialValue(node: NodeSpec, textKey: string, defaultValue?: unknown): DraftValue {
  switch (node.kind) {
    case "integer":
    case "number":
    case "string":
    case "choice":
      return STARTING_VALUES[textKey] ?? (defaultValue === undefined ? "" : String(defaultValue));
    case "boolean":
      return defaultValue === undefined ? "" : String(defaultValue);
    case "object":
      return initialObject(node.fields, (key) => childKey(textKey, key));
    case "union":
    case "keyed-union":
      // A starting value names the variant to start with (a TCP target's framing); else the schema's first.
      return initialVariant(node, STARTING_VALUES[textKey] ?? node.variants[0]!.value, textKey);
    case "scalar":
      return STARTING_VALUES[textKey] ?? (defaultValue === undefined ? "" : String(scalarToText(defaultValue)));
    case "string-list":
    case "number-list":
      return "";
    case "union-list":
      return node.minItems > 0 ? [initialVariant(node.item, node.item.variants[0]!.value, textKey)] : [];
    case "string-record":
      return isObject(defaultValue) ? rowsFromLabels(defaultValue as Record<string, string>) : [];
    case "object-list":
      return node.minItems > 0 ? [initialObject(node.item.fields, (key) => childKey(textKey, key))] : [];
    default:
      return defaultValue;
  }
}

function initialObject(
  fields: FieldSpec[],
  keyOf: (key: string) => string,
  carry: Record<string, unknown> = {},
): DraftObject {
  const out: DraftObject = {};
  for (const field of fields) {
    if (carry[field.key] !== undefined) out[field.key] = carry[field.key];
    // An optional field with a starting value (ping-pong's messageBytes, optional once a template can give the
    // message) starts filled, so a new plan works as it is.
    else if (field.required || field.defaultValue !== undefined || STARTING_VALUES[keyOf(field.key)] !== undefined) {
      out[field.key] = initialValue(field.node, keyOf(field.key), field.defaultValue);
    }
  }
  return out;
}

/** A union switched to `variant`, keeping the values of fields both variants share. */
export function initialVariant(node: UnionNode, variant: string, textKey: string, previous: unknown = {}): DraftObject {
  const spec = node.variants.find((candidate) => candidate.value === variant);
  if (!spec) return isObject(previous) ? (previous as DraftObject) : {};
  const carry = isObject(previous)
    ? Object.fromEntries(
        spec.fields.filter((field) => field.key in previous).map((field) => [field.key, previous[field.key]]),
      )
    : {};
  // A keyed union's fields are named apart already (`regex`, `prefixHex`), so their text keys carry no variant.
  if (node.kind === "keyed-union") return initialObject(spec.fields, (key) => childKey(textKey, key), carry);
  return {
    [node.discriminator]: variant,
    ...initialObject(spec.fields, (key) => childKey(textKey, key, variant), carry),
  };
}

/** Reads any value (a saved plan, an imported file) into a working copy; unknown keys are carried along as they are. */
export function fromInput(node: NodeSpec, value: unknown): DraftValue {
  if (value === undefined || value === null) return undefined;
  switch (node.kind) {
    case "integer":
    case "number":
    case "string":
    case "choice":
      return typeof value === "object" ? value : String(value);
    case "boolean":
      return typeof value === "boolean" ? String(value) : value;
    case "object":
      return isObject(value) ? objectFromInput(node.fields, value) : value;
    case "union": {
      const variant = variantFor(node, value);
      return variant && isObject(value)
        ? { ...objectFromInput(variant.fields, value), [node.discriminator]: variant.value }
        : value;
    }
    case "keyed-union": {
      const variant = variantFor(node, value);
      return variant && isObject(value) ? objectFromInput(variant.fields, value) : value;
    }
    case "scalar":
      return scalarToText(value);
    case "string-list":
      return Array.isArray(value) && value.every((item) => typeof item === "string") ? value.join("\n") : value;
    case "number-list":
      return Array.isArray(value) && value.every((item) => typeof item === "number") ? value.join(", ") : value;
    case "union-list":
      return Array.isArray(value) ? value.map((item) => fromInput(node.item, item)) : value;
    case "string-record":
      return isObject(value)
        ? rowsFromLabels(
            Object.fromEntries(
              Object.entries(value).map(([k, v]) => [k, node.scalarValues ? String(scalarToText(v)) : String(v)]),
            ),
          )
        : value;
    case "object-list":
      return Array.isArray(value)
        ? value.map((item) => (isObject(item) ? objectFromInput(node.item.fields, item) : item))
        : value;
    default:
      return value;
  }
}

function objectFromInput(fields: FieldSpec[], value: Record<string, unknown>): DraftObject {
  const out: DraftObject = { ...value };
  for (const field of fields) {
    const read = fromInput(field.node, value[field.key]);
    if (read === undefined) delete out[field.key];
    else out[field.key] = read;
  }
  return out;
}

function numberFromText(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const number = Number(trimmed);
  // Text that is not a number goes to the schema as is, which names the field in its error.
  return Number.isFinite(number) ? number : trimmed;
}

/** The working copy as the schema's input; blank optional fields are left out so defaults apply. */
export function toInput(node: NodeSpec, draft: DraftValue, required = true): unknown {
  switch (node.kind) {
    case "integer":
    case "number":
      return typeof draft === "string" ? numberFromText(draft) : draft;
    case "string":
      return typeof draft === "string" && draft.trim() === "" && !required ? undefined : draft;
    case "choice": {
      if (typeof draft !== "string") return draft;
      if (draft === "") return undefined;
      return node.options.find((option) => String(option) === draft) ?? draft;
    }
    case "boolean":
      return draft === "true"
        ? true
        : draft === "false"
          ? false
          : draft === ""
            ? required
              ? false
              : undefined
            : draft;
    case "object":
      return isObject(draft) ? objectToInput(node.fields, draft) : draft;
    case "union": {
      const variant = variantFor(node, draft);
      return variant && isObject(draft)
        ? { [node.discriminator]: variant.value, ...objectToInput(variant.fields, draft) }
        : draft;
    }
    case "keyed-union": {
      const variant = variantFor(node, draft);
      return variant && isObject(draft) ? objectToInput(variant.fields, draft) : draft;
    }
    case "scalar":
      return typeof draft === "string" ? scalarFromText(draft) : draft;
    case "number-list": {
      if (typeof draft !== "string") return draft;
      const items = draft
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((item) => numberFromText(item));
      return items.length ? items : undefined;
    }
    case "union-list":
      return Array.isArray(draft) ? draft.map((item) => toInput(node.item, item)) : draft;
    case "string-list": {
      if (typeof draft !== "string") return draft;
      const items = draft
        .split(/[\n,]/)
        .map((item) => item.trim())
        .filter(Boolean);
      return items.length ? items : undefined;
    }
    case "string-record": {
      if (!Array.isArray(draft)) return draft;
      const record: Record<string, unknown> = {};
      for (const row of draft as LabelRow[])
        if (row.key.trim())
          record[row.key.trim()] = node.scalarValues ? (scalarFromText(row.value) ?? "") : row.value.trim();
      return Object.keys(record).length || required ? record : undefined;
    }
    case "object-list":
      // An optional list that may not be empty (plan.network) with its last item removed is left out, not [].
      if (Array.isArray(draft) && draft.length === 0 && !required && node.minItems > 0) return undefined;
      return Array.isArray(draft)
        ? draft.map((item) => (isObject(item) ? objectToInput(node.item.fields, item) : item))
        : draft;
    default:
      return draft;
  }
}

function objectToInput(fields: FieldSpec[], draft: Record<string, unknown>): Record<string, unknown> {
  const known = new Set(fields.map((field) => field.key));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(draft)) if (!known.has(key) && value !== undefined) out[key] = value;
  for (const field of fields) {
    const value = toInput(field.node, draft[field.key], field.required);
    if (value !== undefined) out[field.key] = value;
  }
  return out;
}

export { labelRow };
