// Where a plan may name an organisation secret ({{secrets.NAME}}), how an agent writes the values in (once per shard,
// before anything is compiled, as run-tag.ts does for {{run}}), and how a plan is shown masked on documents that
// leave the organisation (share page, PDF, exports). docs/secrets.md says the same for users.
import type { z } from "zod";
import type { PlanSpec } from "./plan";

/** {{secrets.NAME}}, the name in group 1. */
export const SECRET_PLACEHOLDER = /\{\{secrets\.([A-Za-z_][A-Za-z0-9_]{0,63})\}\}/g;
/** What a masked text shows instead of what was written. */
export const SECRET_MASK = "••••••";

/** How a value is written into a text: URL-encoded, as a header value, into a message body, as a script parameter. */
export type SecretFieldKind = "url" | "header" | "body" | "parameter";

/** A text of a plan that may name secrets, with its path in the plan. */
export interface SecretField {
  path: (string | number)[];
  text: string;
  kind: SecretFieldKind;
  /** A body's template format, which decides how a value is written into it. */
  format?: string;
  /**
   * Masked on documents that leave the organisation unless it uses a {{secrets.…}} placeholder: header values,
   * session and http steps, respond answers, heartbeats, leave steps, script parameters, a URL's credentials and
   * query. The scenario's own traffic (message, update) is what the report is about, and stays readable.
   */
  masked: boolean;
}

type Plan = Pick<PlanSpec, "target" | "scenario">;
type Template = { body: string; format?: string };
type Step = { kind: string; message?: Template; url?: string; headers?: Record<string, string>; body?: Template };
/** The scenario's fields this file reads, whichever kind it is. */
interface ScenarioTexts {
  message?: Template;
  update?: Template;
  heartbeat?: { message?: Template };
  session?: Step[];
  leave?: Step[];
  respond?: { send: Template }[];
  parameters?: Record<string, unknown>;
}

const body = (path: (string | number)[], template: Template, masked: boolean): SecretField => ({
  path: [...path, "body"],
  text: template.body,
  kind: "body",
  ...(template.format ? { format: template.format } : {}),
  masked,
});
const headerFields = (path: (string | number)[], headers: Record<string, string> | undefined): SecretField[] =>
  Object.entries(headers ?? {}).map(([name, text]) => ({
    path: [...path, "headers", name],
    text,
    kind: "header",
    masked: true,
  }));

function stepFields(steps: Step[] | undefined, path: (string | number)[]): SecretField[] {
  return (steps ?? []).flatMap((step, index): SecretField[] => {
    const at = [...path, index];
    if (step.kind === "send" && step.message) return [body([...at, "message"], step.message, true)];
    if (step.kind !== "http") return [];
    return [
      { path: [...at, "url"], text: step.url ?? "", kind: "url", masked: true },
      ...headerFields(at, step.headers),
      ...(step.body ? [body([...at, "body"], step.body, true)] : []),
    ];
  });
}

/** Every text of the plan that may name a secret, in the plan's order. */
export function secretFields(plan: Plan): SecretField[] {
  const fields: SecretField[] = [];
  if (plan.target.protocol === "websocket") {
    fields.push(
      { path: ["target", "url"], text: plan.target.url, kind: "url", masked: true },
      ...headerFields(["target"], plan.target.headers),
    );
  }
  const scenario = plan.scenario as ScenarioTexts;
  if (scenario.message) fields.push(body(["scenario", "message"], scenario.message, false));
  if (scenario.update) fields.push(body(["scenario", "update"], scenario.update, false));
  if (scenario.heartbeat?.message)
    fields.push(body(["scenario", "heartbeat", "message"], scenario.heartbeat.message, true));
  fields.push(
    ...stepFields(scenario.session, ["scenario", "session"]),
    ...stepFields(scenario.leave, ["scenario", "leave"]),
  );
  for (const [index, rule] of (scenario.respond ?? []).entries())
    fields.push(body(["scenario", "respond", index, "send"], rule.send, true));
  for (const [name, value] of Object.entries(scenario.parameters ?? {})) {
    if (typeof value === "string")
      fields.push({ path: ["scenario", "parameters", name], text: value, kind: "parameter", masked: true });
  }
  return fields;
}

const usesSecret = (text: string) => text.includes("{{secrets.");
const names = (text: string) => [...text.matchAll(SECRET_PLACEHOLDER)].map((match) => match[1]!);

/** Each {{secrets.NAME}} the plan uses, with the field it is in ("scenario.session.0.message.body"). */
export function secretsUsed(plan: Plan): { name: string; path: string }[] {
  return secretFields(plan).flatMap((field) => names(field.text).map((name) => ({ name, path: field.path.join(".") })));
}

/** The names of the secrets the plan uses, each once, sorted. */
export function secretNamesUsed(plan: Plan): string[] {
  return [...new Set(secretsUsed(plan).map((use) => use.name))].sort();
}

/** A plan names secrets that have no value here; `missing` says which, and where. */
export class MissingSecretsError extends Error {
  constructor(readonly missing: readonly { name: string; path: string }[]) {
    super(
      `the plan uses ${missing.map((use) => `{{secrets.${use.name}}} (${use.path})`).join(", ")}, which ${missing.length === 1 ? "has" : "have"} no value here`,
    );
    this.name = "MissingSecretsError";
  }
}

const EVEN_HEX = /^([0-9a-fA-F]{2})*$/;
const toHex = (text: string) =>
  [...new TextEncoder().encode(text)].map((byte) => byte.toString(16).padStart(2, "0")).join("");

/** A value as it goes into one field: URL-encoded in a URL, inside a JSON string in JSON-written bodies, bytes in hex bodies. */
function written(value: string, field: SecretField, name: string): string {
  switch (field.kind) {
    case "url":
      return encodeURIComponent(value);
    case "header":
      if (/[\r\n]/.test(value))
        throw new Error(
          `{{secrets.${name}}} holds a line break, which cannot go in a header (${field.path.join(".")})`,
        );
      return value;
    case "parameter":
      return value;
    case "body":
      if (field.format === "json" || field.format === "msgpack" || field.format === "protobuf")
        return JSON.stringify(value).slice(1, -1);
      if (field.format === "hex") return EVEN_HEX.test(value) ? value : toHex(value);
      return value;
  }
}

/** Sets `value` at `path` inside `root` (a copy the caller owns). */
function setAt(root: unknown, path: readonly (string | number)[], value: string): void {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
}

/** The plan with each of `fields` replaced by `replace(field)`; the plan itself when there is none. */
function replacing<P extends Plan>(
  plan: P,
  fields: readonly SecretField[],
  replace: (field: SecretField) => string,
): P {
  if (fields.length === 0) return plan;
  const copy = structuredClone(plan);
  for (const field of fields) setAt(copy, field.path, replace(field));
  return copy;
}

/**
 * The plan with every {{secrets.NAME}} replaced by its value (a URL's URL-encoded, a JSON-written body's escaped as
 * inside a JSON string, a hex body's as the bytes its hex digits spell or its UTF-8 bytes). Throws a
 * MissingSecretsError naming each secret without a value; a plan without secrets is returned as it is.
 */
export function withSecrets<P extends Plan>(plan: P, values: Readonly<Record<string, string>>): P {
  const fields = secretFields(plan).filter((field) => usesSecret(field.text));
  const missing = fields.flatMap((field) =>
    names(field.text)
      .filter((name) => values[name] === undefined)
      .map((name) => ({ name, path: field.path.join(".") })),
  );
  if (missing.length > 0) throw new MissingSecretsError(missing);
  return replacing(plan, fields, (field) =>
    field.text.replace(SECRET_PLACEHOLDER, (_, name: string) => written(values[name]!, field, name)),
  );
}

/** A URL with its credentials (user:password@), query and fragment masked; scheme, host and path stay readable. */
function maskUrl(url: string): string {
  const parts = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*@)?([^/?#]*)([^?#]*)([?#].*)?$/.exec(url);
  if (!parts) return SECRET_MASK;
  const [, scheme, userinfo, host, path, rest] = parts;
  return `${scheme}${userinfo ? `${SECRET_MASK}@` : ""}${host}${path}${rest ? `${rest[0]}${SECRET_MASK}` : ""}`;
}

/**
 * The plan as documents that leave the organisation show it (share page, PDF, JSON export): each masked field (see
 * SecretField.masked) that uses no {{secrets.…}} placeholder is replaced by ••••••, and a URL loses its credentials
 * and query. A field that names a secret is shown as written: the placeholder is not the secret.
 */
export function maskPlanSecrets<P extends Plan>(plan: P): P {
  const fields = secretFields(plan).filter((field) => field.masked && !usesSecret(field.text));
  const changed = fields.filter((field) => (field.kind === "url" ? maskUrl(field.text) !== field.text : true));
  return replacing(plan, changed, (field) => (field.kind === "url" ? maskUrl(field.text) : SECRET_MASK));
}

/** Every string in `value` with its path. */
function strings(value: unknown, path: (string | number)[], found: { path: (string | number)[]; text: string }[] = []) {
  if (typeof value === "string") found.push({ path, text: value });
  else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) strings(item, [...path, index], found);
  } else if (value && typeof value === "object")
    for (const [key, item] of Object.entries(value)) strings(item, [...path, key], found);
  return found;
}

/**
 * A plan's check (its superRefine) that {{secrets.…}} appears only where a secret can be written in, and only as
 * {{secrets.NAME}}: anywhere else it would go out as written, and the server under test would get the placeholder.
 */
export function checkSecretPlaceholders(plan: Plan, ctx: z.RefinementCtx): void {
  const allowed = new Set(secretFields(plan).map((field) => JSON.stringify(field.path)));
  for (const { path, text } of strings(plan, [])) {
    const marks = text.match(/\{\{\s*secrets\b[^}]*\}\}/g);
    if (!marks) continue;
    if (!allowed.has(JSON.stringify(path))) {
      ctx.addIssue({
        code: "custom",
        path,
        message:
          "{{secrets.NAME}} works only in message templates, session and http steps (url, headers, body), respond answers, heartbeats, leave steps, a WebSocket target's url and headers, and a script's parameters",
      });
      continue;
    }
    for (const mark of marks.filter((mark) => !new RegExp(`^${SECRET_PLACEHOLDER.source}$`).test(mark))) {
      ctx.addIssue({
        code: "custom",
        path,
        message: `"${mark}" is not a secret: write {{secrets.NAME}}, a name of letters, digits and _ (e.g. {{secrets.REDIS_PASSWORD}})`,
      });
    }
  }
}

/** The forms a value takes in what a client sends (as written, URL-encoded, inside a JSON string), longest first. */
export function secretForms(value: string): string[] {
  return [...new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])]
    .filter((form) => form.length > 0)
    .sort((a, b) => b.length - a.length);
}

/** `text` with every form of every value replaced by its {{secrets.NAME}}: what a trial or an error may show. */
export function redactSecrets(text: string, values: Readonly<Record<string, string>>): string {
  const forms = Object.entries(values)
    .flatMap(([name, value]) => secretForms(value).map((form) => ({ form, placeholder: `{{secrets.${name}}}` })))
    .sort((a, b) => b.form.length - a.form.length);
  return forms.reduce((out, { form, placeholder }) => out.split(form).join(placeholder), text);
}

const hexOf = (text: string) =>
  [...new TextEncoder().encode(text)].map((byte) => byte.toString(16).padStart(2, "0")).join("");

/** `hex` with each (byte-aligned) occurrence of `found` overwritten by as many "*" bytes: the preview keeps its length. */
function maskHex(hex: string, found: string): string {
  let out = hex;
  for (let at = out.indexOf(found); at >= 0; at = out.indexOf(found, at + 1)) {
    if (at % 2 === 0) out = `${out.slice(0, at)}${"2a".repeat(found.length / 2)}${out.slice(at + found.length)}`;
  }
  return out;
}

/**
 * Lowercase hex bytes with every form of every value (as written, URL-encoded, JSON-escaped, or the bytes a hex value
 * spells) overwritten by "*" bytes: what a trial's preview or an error sample's bytes may show.
 */
export function redactHex(hex: string, values: Readonly<Record<string, string>>): string {
  const forms = Object.values(values)
    .flatMap((value) => [
      ...secretForms(value).map(hexOf),
      ...(/^([0-9a-fA-F]{2})+$/.test(value) ? [value.toLowerCase()] : []),
    ])
    .sort((a, b) => b.length - a.length);
  return forms.reduce(maskHex, hex);
}
