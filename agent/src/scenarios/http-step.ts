import type { SessionStep } from "@throng/protocol/plan";
import { prepareTemplate, type PreparedTemplate, type SessionVars } from "@throng/wire/message-template";
import { compileCapture, type CaptureReader } from "./reply-rule";
import type { StepObserver } from "./session";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import type { WireFormat } from "@throng/wire/wire-format";

/** An http step as the plan gives it. */
export type HttpStep = Extract<SessionStep, { kind: "http" }>;

/** Why an http step failed: its errorsByKind key ("session-capture" when the answer lacks a captured value). */
export type HttpFailure = "http-status" | "http-timeout" | "http-error" | "session-capture";

/** The fields a URL or header can use besides {{vars.NAME}}. */
export interface TextFields {
  client: number;
  room?: number;
}

const TEXT_PLACEHOLDER = /\{\{(client|room|vars\.[A-Za-z_][A-Za-z0-9_]*)\}\}/g;

/**
 * Fills a URL's or header's {{client}} and {{vars.NAME}}; `encode` (a URL's encodeURIComponent) is applied to each
 * value. Throws on a variable with no value, and on a value with a line break (it would end the header).
 */
export function fillText(
  text: string,
  fields: TextFields,
  vars: SessionVars,
  encode: (value: string) => string = (value) => value,
): string {
  return text.replace(TEXT_PLACEHOLDER, (_, name: string) => {
    const value = name.startsWith("vars.") ? vars[name.slice(5)] : fields[name as keyof TextFields];
    if (value === undefined) throw new Error(`{{${name}}} has no value (no http step captured it)`);
    const text = String(value);
    if (/[\r\n]/.test(text)) throw new Error(`{{${name}}} holds a line break`);
    return encode(text);
  });
}

/** One http step parsed once per scenario: its body template and capture readers. */
export interface CompiledHttpStep {
  readonly method: "GET" | "POST" | "PUT";
  readonly url: string;
  readonly headers: readonly [string, string][];
  readonly body?: { template: PreparedTemplate; contentType: string };
  readonly okStatus: (status: number) => boolean;
  readonly timeoutMs: number;
  readonly captures: readonly { name: string; read: CaptureReader }[];
}

const CONTENT_TYPES: Record<string, string> = { json: "application/json", text: "text/plain; charset=utf-8" };

/** Compiles an http step; `defaultTimeoutMs` is its timeout when it gives none. Responses are read as JSON text. */
export function compileHttpStep(step: HttpStep, defaultTimeoutMs: number, wire?: WireFormat): CompiledHttpStep {
  const expected = step.expectStatus ? new Set(step.expectStatus) : undefined;
  return {
    method: step.method ?? "GET",
    url: step.url,
    headers: Object.entries(step.headers ?? {}),
    ...(step.body
      ? {
          body: {
            template: prepareTemplate(step.body, wire),
            contentType: CONTENT_TYPES[step.body.format ?? "text"] ?? "application/octet-stream",
          },
        }
      : {}),
    okStatus: expected ? (status) => expected.has(status) : (status) => status >= 200 && status <= 299,
    timeoutMs: step.timeoutMs ?? defaultTimeoutMs,
    captures: (step.capture ?? []).map((capture) => ({ name: capture.name, read: compileCapture(capture) })),
  };
}

/**
 * How one client's http steps ended: its variables, or the failure, with the step that failed (its index in the
 * plan's session: http steps come first) and the status of an "http-status" one.
 */
export type HttpOutcome = { ok: true } | { ok: false; cause: HttpFailure; step: number; status?: number };

/**
 * Runs the steps in order with Node's fetch, each under its own timeout; captures go into `vars`. `signal` aborts
 * them all (the client was stopped): the outcome is then "http-error" and the caller counts nothing.
 */
export async function runHttpSteps(
  steps: readonly CompiledHttpStep[],
  fields: TextFields,
  vars: Record<string, string | number>,
  signal: AbortSignal,
  observer?: StepObserver,
  metrics?: Pick<ScenarioMetrics, "sessionStepMicros">,
): Promise<HttpOutcome> {
  for (const [index, step] of steps.entries()) {
    observer?.step();
    const startedAt = performance.now();
    let request: { url: string; init: RequestInit };
    try {
      request = buildRequest(step, fields, vars);
    } catch {
      return { ok: false, cause: "session-capture", step: index };
    }
    observer?.sent(`${step.method} ${request.url}${request.init.body ? `\n\n${String(request.init.body)}` : ""}`);
    let body: Buffer;
    try {
      const response = await fetch(request.url, {
        ...request.init,
        signal: AbortSignal.any([signal, AbortSignal.timeout(step.timeoutMs)]),
      });
      body = Buffer.from(await response.arrayBuffer());
      const ok = step.okStatus(response.status);
      observer?.received(Buffer.concat([Buffer.from(`HTTP ${response.status}\n\n`), body]), ok);
      if (!ok) return { ok: false, cause: "http-status", step: index, status: response.status };
    } catch (error) {
      const cause = (error as Error).name === "TimeoutError" ? "http-timeout" : "http-error";
      return { ok: false, cause, step: index };
    }
    for (const { name, read } of step.captures) {
      const value = read(body);
      if (value === undefined) return { ok: false, cause: "session-capture", step: index };
      vars[name] = value;
      observer?.captured(name, value);
    }
    metrics?.sessionStepMicros(index, (performance.now() - startedAt) * 1000);
  }
  return { ok: true };
}

function buildRequest(
  step: CompiledHttpStep,
  fields: TextFields,
  vars: SessionVars,
): { url: string; init: RequestInit } {
  const headers: Record<string, string> = {};
  if (step.body) headers["content-type"] = step.body.contentType;
  for (const [name, value] of step.headers) headers[name.toLowerCase()] = fillText(value, fields, vars);
  const init: RequestInit = { method: step.method, headers };
  if (step.body)
    init.body = step.body.template.bind(vars)({
      seq: 0,
      sentAtUs: Math.round((performance.timeOrigin + performance.now()) * 1000),
      ...fields,
    });
  return { url: fillText(step.url, fields, vars, encodeURIComponent), init };
}
