import { PlanSpec } from "@throng/protocol/plan";
import type { FieldError } from "@throng/protocol/errors";
import { labelsFromRows, type LabelRow } from "../shared/labels";
import { scenarioTemplate } from "./plan-summary";
import { schemaWords } from "./schema-words";
import { sloText } from "../shared/slo-text";
import { slosForForm, slosForPlan, unmeasuredSloErrors } from "./plan-slos";
import { fromInput, initialValue, toInput, type DraftObject } from "./schema-form";
import { describeNode, type FieldSpec, type NodeSpec } from "./schema-node";

/** The plan schema as the editor draws it, read once from the protocol. */
export const PLAN_NODE = describeNode(PlanSpec) as Extract<NodeSpec, { kind: "object" }>;

export const planField = (key: string): FieldSpec => PLAN_NODE.fields.find((field) => field.key === key)!;

/** The plan as typed in the editor. */
export type PlanDraft = DraftObject;

/** Errors keyed by field path (`load.clients`, `scenario.heartbeat.intervalMs`). */
export type PlanErrors = Record<string, string>;

/** The input id of the control for a path: `load.clients` → `load-clients`. */
export const fieldId = (path: string) => path.replace(/\./g, "-");

// The agent selection is always on the form; left out of the plan while it says only the defaults.
function withAgents(draft: DraftObject): DraftObject {
  return draft.agents === undefined ? { ...draft, agents: initialValue(planField("agents").node, "agents") } : draft;
}

export function emptyDraft(): PlanDraft {
  return withAgents(initialValue(PLAN_NODE, "") as DraftObject);
}

/**
 * A delimiter framing written as text (`delimiter: "\r\n"`) as its bytes in hex: the form shows one delimiter, as text
 * and hex side by side, not a third box beside them. The hex wins over the text in the schema, so nothing changes.
 */
function delimiterAsHex(draft: DraftObject): DraftObject {
  const target = draft.target as DraftObject | undefined;
  const framing = target?.framing as DraftObject | undefined;
  if (framing?.kind !== "delimiter" || typeof framing.delimiter !== "string") return draft;
  const { delimiter, ...rest } = framing;
  const hex = [...new TextEncoder().encode(delimiter)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return { ...draft, target: { ...target, framing: { ...rest, delimiterHex: rest.delimiterHex || hex } } };
}

/** A draft from anything plan-shaped (a saved plan, an imported file); fields the form cannot draw are kept. Rates read in percent. */
export function draftFromInput(input: unknown): PlanDraft {
  const read = delimiterAsHex(
    fromInput(PLAN_NODE, typeof input === "object" && input !== null ? input : {}) as DraftObject,
  );
  return withAgents(read.slos === undefined ? read : { ...read, slos: slosForForm(read.slos) });
}

function isDefaultAgents(agents: unknown): boolean {
  if (typeof agents !== "object" || agents === null) return false;
  const { labels, onLost, count, ...rest } = agents as Record<string, unknown>;
  const noLabels =
    labels === undefined || (typeof labels === "object" && labels !== null && Object.keys(labels).length === 0);
  return (
    noLabels && (onLost === undefined || onLost === "continue") && count === undefined && Object.keys(rest).length === 0
  );
}

/**
 * The built-in message's size left in a scenario that sends its own message (the form starts ping-pong at 64 B):
 * the engine never uses it, so the plan does not say it (a Redis plan sending "PING" kept `messageBytes: 64`).
 */
function withoutUnusedSize(scenario: unknown): unknown {
  if (typeof scenario !== "object" || scenario === null) return scenario;
  const { messageBytes, ...rest } = scenario as Record<string, unknown>;
  // echo-flood's messageBytes is required by its schema, so it stays.
  return messageBytes !== undefined && rest.kind !== "echo-flood" && scenarioTemplate(rest) ? rest : scenario;
}

/** What the draft says, as plan input: the JSON/YAML view shows and the API gets this (a rate's threshold as the fraction). */
export function draftToInput(draft: PlanDraft): Record<string, unknown> {
  const input = toInput(PLAN_NODE, draft) as Record<string, unknown>;
  if (isDefaultAgents(input.agents)) delete input.agents;
  if (input.slos !== undefined) input.slos = slosForPlan(input.slos);
  if (input.scenario !== undefined) input.scenario = withoutUnusedSize(input.scenario);
  return input;
}

export type DraftCheck = { ok: true; spec: PlanSpec } | { ok: false; errors: PlanErrors };

/** zod issues as field errors; a bad record key is reported on the record with zod's nested message. */
export function issuesToFields(
  issues: readonly { path: readonly PropertyKey[]; message: string; issues?: unknown }[],
): FieldError[] {
  return issues.map((issue) => {
    const nested = Array.isArray(issue.issues)
      ? (issue.issues[0] as { message?: string } | undefined)?.message
      : undefined;
    return { path: issue.path.map(String).join(".") || "form", message: nested ?? issue.message };
  });
}

/** zod's words for an empty or mistyped box as a person would say them; SLO metric ids as names. */
export function problemMessage(path: string, message: string): string {
  if (/expected number, received (string|NaN)/i.test(message)) return "enter a number";
  if (/received undefined/i.test(message)) return /slos\.\d+\.metric$/.test(path) ? "choose a metric" : "fill this in";
  if (/slos\.\d+\.metric$/.test(path) && message.startsWith("must be one of")) return "choose a metric from the list";
  const options = /^Invalid option: expected one of (.+)$/.exec(message);
  if (options) return `choose one of ${options[1]!.replace(/"/g, "").split("|").join(", ")}`;
  return sloText(schemaWords(message));
}

/** Field errors by path, each message in a person's words (problemMessage). */
export function errorsByPath(fields: readonly FieldError[]): PlanErrors {
  const errors: PlanErrors = {};
  for (const { path, message: raw } of fields) {
    const message = problemMessage(path, raw);
    errors[path] = errors[path] ? `${errors[path]}; ${message}` : message;
  }
  return errors;
}

/** Field errors of an UpdatePlan body (`spec.load.clients`) as paths of the plan itself (`load.clients`). */
export function specFieldErrors(fields: readonly FieldError[]): FieldError[] {
  return fields.map((field) => ({
    ...field,
    path: field.path.startsWith("spec.") ? field.path.slice(5) : field.path === "spec" ? "form" : field.path,
  }));
}

/** Checks the draft with the schema the API uses; text in a number box gets a plain message. */
export function validateDraft(draft: PlanDraft): DraftCheck {
  const input = draftToInput(draft);
  const result = PlanSpec.safeParse(input);
  const labels = labelsFromRows(((draft.agents as DraftObject | undefined)?.labels ?? []) as LabelRow[]);
  // An SLO its scenario never measures: the schema takes it only where plans saved before could name it; the form does not.
  const unmeasured = Object.entries(unmeasuredSloErrors(draft)).map(([path, message]) => ({ path, message }));
  if (result.success && labels.ok && unmeasured.length === 0) return { ok: true, spec: result.data };
  const fields = [...(result.success ? [] : issuesToFields(result.error.issues)), ...unmeasured];
  const errors = errorsByPath(fields);
  if (!labels.ok)
    errors["agents.labels"] = Object.entries(labels.errors)
      .map(([, message]) => message)
      .join("; ");
  return { ok: false, errors };
}

/** Messages per second the scenario asks for at full load, where the scenario says (ping-pong: one ping per interval). */
export function expectedMessagesPerSec(draft: PlanDraft): number | null {
  const load = draft.load as DraftObject | undefined;
  const scenario = draft.scenario as DraftObject | undefined;
  const clients = Number(load?.clients);
  if (!(clients > 0) || !scenario) return null;
  if (scenario.kind === "ping-pong" && Number(scenario.intervalMs) > 0)
    return (clients * 1000) / Number(scenario.intervalMs);
  if (scenario.kind === "movement-sync" && Number(scenario.updateHz) > 0) return clients * Number(scenario.updateHz);
  return null;
}
