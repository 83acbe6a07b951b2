import { PlanSpec } from "@throng/protocol/plan";
import type { FieldError } from "@throng/protocol/errors";
import { labelErrorsFromApi, labelRow, labelsFromRows, rowsFromLabels, type LabelErrors, type LabelRow } from "./labels";
import { describeObject, describeUnion, innerSchema, type FieldSpec, type UnionSpec } from "./schema-fields";

/** The schema's plan sections as the editor draws them; read once from the protocol. */
export const PLAN_SHAPE = {
  target: describeUnion(PlanSpec.shape.target),
  scenario: describeUnion(PlanSpec.shape.scenario),
  load: describeObject(PlanSpec.shape.load),
  agents: describeObject(innerSchema(PlanSpec.shape.agents)).filter((field) => field.key !== "labels"),
} as const;

export type VariantSection = "target" | "scenario";

/** A union section as typed: which variant, and its fields as text. */
export interface VariantDraft {
  variant: string;
  values: Record<string, string>;
}

/** The plan as typed in the form: strings, so half-typed numbers survive until saved. */
export interface PlanDraft {
  name: string;
  target: VariantDraft;
  scenario: VariantDraft;
  load: Record<string, string>;
  agents: { values: Record<string, string>; labels: LabelRow[] };
  /** Values the form has no control for (lists, nested objects), kept by path so a save does not drop them. */
  kept: Record<string, unknown>;
}

/** Errors keyed by field path (`load.clients`); `form` holds the ones no field owns. */
export type PlanErrors = Record<string, string>;

const STARTING_VALUES: Record<string, string> = {
  "target.websocket.url": "ws://127.0.0.1:7070/ws",
  "scenario.ping-pong.intervalMs": "1000",
  "scenario.ping-pong.messageBytes": "64",
  "load.clients": "100",
  "load.durationSec": "30",
};

/** The input id of a field: its path with dashes, e.g. `load-clients`. */
export const fieldId = (path: string) => path.replace(/\./g, "-");

export function variantOf(section: VariantSection, value: string): UnionSpec["variants"][number] | undefined {
  return PLAN_SHAPE[section].variants.find((variant) => variant.value === value);
}

function toText(field: FieldSpec, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (field.kind === "integer" || field.kind === "number") return typeof value === "number" ? String(value) : String(value);
  if (field.kind === "boolean") return value ? "true" : "false";
  if (field.kind === "string" || field.kind === "enum") return String(value);
  return null;
}

function startingText(path: string, field: FieldSpec): string {
  return STARTING_VALUES[path] ?? toText(field, field.defaultValue) ?? "";
}

/** Reads one section's fields from a loose object; what the form cannot show goes to `kept`. */
function readFields(fields: FieldSpec[], source: unknown, prefix: string, kept: Record<string, unknown>, startPrefix = prefix) {
  const record = (typeof source === "object" && source !== null ? source : {}) as Record<string, unknown>;
  const values: Record<string, string> = {};
  for (const field of fields) {
    const raw = record[field.key];
    if (field.kind === "unsupported" || field.kind === "record") {
      if (raw !== undefined) kept[`${prefix}.${field.key}`] = raw;
      continue;
    }
    values[field.key] = raw === undefined ? startingText(`${startPrefix}.${field.key}`, field) : (toText(field, raw) ?? "");
  }
  return values;
}

function readVariant(section: VariantSection, source: unknown, kept: Record<string, unknown>): VariantDraft {
  const union = PLAN_SHAPE[section];
  const record = (typeof source === "object" && source !== null ? source : {}) as Record<string, unknown>;
  const asked = String(record[union.discriminator] ?? "");
  const variant = union.variants.find((candidate) => candidate.value === asked) ?? union.variants[0]!;
  return { variant: variant.value, values: readFields(variant.fields, record, section, kept, `${section}.${variant.value}`) };
}

/** A draft from anything plan-shaped (a saved plan, an imported file); missing fields get starting values. */
export function draftFromInput(input: unknown): PlanDraft {
  const record = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  const agents = (typeof record.agents === "object" && record.agents !== null ? record.agents : {}) as Record<string, unknown>;
  const labels = typeof agents.labels === "object" && agents.labels !== null ? (agents.labels as Record<string, string>) : {};
  for (const key of Object.keys(record)) {
    if (!["name", "target", "scenario", "load", "agents"].includes(key)) kept[key] = record[key];
  }
  return {
    name: typeof record.name === "string" ? record.name : "",
    target: readVariant("target", record.target, kept),
    scenario: readVariant("scenario", record.scenario, kept),
    load: readFields(PLAN_SHAPE.load, record.load, "load", kept),
    agents: { values: readFields(PLAN_SHAPE.agents, agents, "agents", kept), labels: rowsFromLabels(labels) },
    kept,
  };
}

export const emptyDraft = (): PlanDraft => draftFromInput({});

/** Switches a union section to another variant, carrying over fields both variants have. */
export function switchVariant(draft: PlanDraft, section: VariantSection, value: string): PlanDraft {
  const variant = variantOf(section, value);
  if (!variant) return draft;
  const previous = draft[section].values;
  const values: Record<string, string> = {};
  for (const field of variant.fields) {
    if (field.kind === "unsupported" || field.kind === "record") continue;
    values[field.key] = previous[field.key] ?? startingText(`${section}.${value}.${field.key}`, field);
  }
  return { ...draft, [section]: { variant: value, values } };
}

function fromText(field: FieldSpec, text: string): unknown {
  const trimmed = text.trim();
  if (field.kind === "integer" || field.kind === "number") return trimmed === "" ? undefined : Number(trimmed);
  if (field.kind === "boolean") return text === "true";
  if (field.kind === "enum") return trimmed === "" ? undefined : trimmed;
  return field.required ? text : trimmed === "" ? undefined : text;
}

function writeFields(fields: FieldSpec[], values: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const text = values[field.key];
    if (text === undefined) continue;
    const value = fromText(field, text);
    if (value !== undefined) out[field.key] = value;
  }
  return out;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown) {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== "object" || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

/** What the draft says, as plan input (the JSON/YAML view shows this); `agents` only when it differs from the default. */
export function draftToInput(draft: PlanDraft): Record<string, unknown> {
  const union = (section: VariantSection) => {
    const variant = variantOf(section, draft[section].variant);
    return { [PLAN_SHAPE[section].discriminator]: draft[section].variant, ...writeFields(variant?.fields ?? [], draft[section].values) };
  };
  const input: Record<string, unknown> = {
    name: draft.name,
    target: union("target"),
    scenario: union("scenario"),
    load: writeFields(PLAN_SHAPE.load, draft.load),
  };
  const agentValues = writeFields(PLAN_SHAPE.agents, draft.agents.values);
  const labels: Record<string, string> = {};
  for (const row of draft.agents.labels) if (row.key.trim()) labels[row.key.trim()] = row.value.trim();
  const onlyDefaults = PLAN_SHAPE.agents.every((field) => agentValues[field.key] === undefined || agentValues[field.key] === field.defaultValue);
  if (!onlyDefaults || Object.keys(labels).length > 0) input.agents = { ...agentValues, labels };
  for (const [path, value] of Object.entries(draft.kept)) setPath(input, path, value);
  return input;
}

/** Every field path the form draws, so an error on any other path goes to the form's banner. */
export function formPaths(draft: PlanDraft): Set<string> {
  const paths = new Set(["name", "target.protocol", "scenario.kind"]);
  for (const section of ["target", "scenario"] as const) {
    paths.add(`${section}.${PLAN_SHAPE[section].discriminator}`);
    for (const field of variantOf(section, draft[section].variant)?.fields ?? []) paths.add(`${section}.${field.key}`);
  }
  for (const field of PLAN_SHAPE.load) paths.add(`load.${field.key}`);
  for (const field of PLAN_SHAPE.agents) paths.add(`agents.${field.key}`);
  return paths;
}

export interface DraftErrors {
  fields: PlanErrors;
  labels: LabelErrors;
}

/** Sorts field errors (from zod or an API 400) onto fields, label rows, or the banner. */
export function draftErrors(draft: PlanDraft, fields: readonly FieldError[]): DraftErrors {
  const owned = formPaths(draft);
  const errors: PlanErrors = {};
  const labelFields: FieldError[] = [];
  for (const { path, message } of fields) {
    if (path.startsWith("agents.labels")) {
      labelFields.push({ path: path.replace(/^agents\./, ""), message });
      continue;
    }
    const key = owned.has(path) ? path : "form";
    const text = key === "form" ? `${path}: ${message}` : message;
    errors[key] = errors[key] ? `${errors[key]}; ${text}` : text;
  }
  const labels = labelFields.length ? labelErrorsFromApi(draft.agents.labels, labelFields, "") : {};
  return { fields: errors, labels };
}

export type DraftCheck = { ok: true; spec: PlanSpec } | { ok: false; errors: DraftErrors };

function numberErrors(draft: PlanDraft): FieldError[] {
  const sections: [string, FieldSpec[], Record<string, string>][] = [
    ["target", variantOf("target", draft.target.variant)?.fields ?? [], draft.target.values],
    ["scenario", variantOf("scenario", draft.scenario.variant)?.fields ?? [], draft.scenario.values],
    ["load", PLAN_SHAPE.load, draft.load],
    ["agents", PLAN_SHAPE.agents, draft.agents.values],
  ];
  const found: FieldError[] = [];
  for (const [section, fields, values] of sections) {
    for (const field of fields) {
      const text = values[field.key]?.trim() ?? "";
      if (field.kind !== "integer" && field.kind !== "number") continue;
      if (text === "" ? field.required : !Number.isFinite(Number(text))) {
        found.push({ path: `${section}.${field.key}`, message: field.kind === "integer" ? "enter a whole number" : "enter a number" });
      }
    }
  }
  return found;
}

/** Checks the draft with the schema the API uses; the messages are the schema's own. */
export function validateDraft(draft: PlanDraft): DraftCheck {
  const rows = labelsFromRows(draft.agents.labels);
  const own = numberErrors(draft);
  const result = PlanSpec.safeParse(draftToInput(draft));
  if (result.success && own.length === 0 && rows.ok) return { ok: true, spec: result.data };
  const ownPaths = new Set(own.map((field) => field.path));
  const schema = result.success ? [] : result.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));
  // The rows' own check names the bad row; the schema's record issue would only repeat it for the whole set.
  const kept = schema.filter((field) => !ownPaths.has(field.path) && (rows.ok || !field.path.startsWith("agents.labels")));
  const errors = draftErrors(draft, [...own, ...kept]);
  return { ok: false, errors: { fields: errors.fields, labels: { ...errors.labels, ...(rows.ok ? {} : rows.errors) } } };
}

/** Pings per second at full load when the scenario has an interval, else null. */
export function expectedMessagesPerSec(draft: PlanDraft): number | null {
  const clients = Number(draft.load.clients);
  const intervalMs = Number(draft.scenario.values.intervalMs);
  if (!(clients > 0) || !(intervalMs > 0)) return null;
  return (clients * 1000) / intervalMs;
}

export { labelRow };
