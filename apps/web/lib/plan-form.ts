import { PlanSpec, type PlanSpecInput } from "@throng/protocol/plan";
import type { FieldError } from "@throng/protocol/errors";

/** The ping-pong WebSocket plan form as typed: strings, so half-typed numbers survive. */
export interface PlanFormValues {
  name: string;
  url: string;
  clients: string;
  durationSec: string;
  rampUpSec: string;
  intervalMs: string;
  messageBytes: string;
}

export type PlanFormField = keyof PlanFormValues;

export const DEFAULT_PLAN_FORM: PlanFormValues = {
  name: "",
  url: "ws://127.0.0.1:7070/ws",
  clients: "100",
  durationSec: "30",
  rampUpSec: "0",
  intervalMs: "1000",
  messageBytes: "64",
};

/** Where each form field sits in a PlanSpec: the paths the schema and the API report errors on. */
export const PLAN_FIELD_PATHS: Record<PlanFormField, string> = {
  name: "name",
  url: "target.url",
  clients: "load.clients",
  durationSec: "load.durationSec",
  rampUpSec: "load.rampUpSec",
  intervalMs: "scenario.intervalMs",
  messageBytes: "scenario.messageBytes",
};

const NUMERIC_FIELDS = ["clients", "durationSec", "rampUpSec", "intervalMs", "messageBytes"] as const;

/** Field errors keyed by form field; `form` holds the ones no field owns. */
export type PlanFormErrors = Partial<Record<PlanFormField | "form", string>>;

function toNumber(text: string): number {
  const trimmed = text.trim();
  return trimmed === "" ? Number.NaN : Number(trimmed);
}

export function toPlanInput(values: PlanFormValues): PlanSpecInput {
  return {
    name: values.name,
    target: { protocol: "websocket", url: values.url },
    scenario: { kind: "ping-pong", intervalMs: toNumber(values.intervalMs), messageBytes: toNumber(values.messageBytes) },
    load: {
      clients: toNumber(values.clients),
      durationSec: toNumber(values.durationSec),
      rampUpSec: toNumber(values.rampUpSec),
    },
  };
}

/** Maps `load.clients`-style paths (from zod issues or an API 400) onto the form's fields. */
export function errorsByField(fields: readonly FieldError[]): PlanFormErrors {
  const errors: PlanFormErrors = {};
  const owners = Object.entries(PLAN_FIELD_PATHS) as [PlanFormField, string][];
  for (const { path, message } of fields) {
    const owner = owners.find(([, fieldPath]) => fieldPath === path)?.[0];
    const key = owner ?? "form";
    const text = owner ? message : `${path}: ${message}`;
    errors[key] = errors[key] ? `${errors[key]}; ${text}` : text;
  }
  return errors;
}

export type PlanValidation = { ok: true; spec: PlanSpec } | { ok: false; errors: PlanFormErrors };

/** Client-side validation with the same schema the API uses. */
export function validatePlanForm(values: PlanFormValues): PlanValidation {
  const notNumbers: FieldError[] = NUMERIC_FIELDS.filter((field) => !Number.isFinite(toNumber(values[field]))).map(
    (field) => ({ path: PLAN_FIELD_PATHS[field], message: "enter a whole number" }),
  );
  const result = PlanSpec.safeParse(toPlanInput(values));
  if (result.success && notNumbers.length === 0) return { ok: true, spec: result.data };
  const schemaFields: FieldError[] = result.success
    ? []
    : result.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));
  const numberPaths = new Set(notNumbers.map((field) => field.path));
  const fields = [...notNumbers, ...schemaFields.filter((field) => !numberPaths.has(field.path))];
  return { ok: false, errors: errorsByField(fields) };
}

/** Pings per second the plan sends at full load (each answered by one pong), or null while invalid. */
export function expectedMessagesPerSec(values: PlanFormValues): number | null {
  const clients = toNumber(values.clients);
  const intervalMs = toNumber(values.intervalMs);
  if (!(clients > 0) || !(intervalMs > 0)) return null;
  return (clients * 1000) / intervalMs;
}
