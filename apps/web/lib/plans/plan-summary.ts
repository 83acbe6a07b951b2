import type { PlanSpec } from "@throng/protocol/plan";
import { formatDuration, formatInteger, formatRate } from "../shared/format";
import { formatLabels } from "../shared/labels";

/** "100 clients · 30 s (ramp-up 10 s)". */
export function describeLoad(spec: PlanSpec): string {
  const ramp = spec.load.rampUpSec > 0 ? ` (ramp-up ${formatDuration(spec.load.rampUpSec)})` : "";
  return `${formatInteger(spec.load.clients)} clients · ${formatDuration(spec.load.durationSec)}${ramp}`;
}

/** Where the load goes, whatever the transport: its URL, or host:port. */
export function describeTarget(spec: PlanSpec): string {
  const target = spec.target as { protocol: string } & Record<string, unknown>;
  if (typeof target.url === "string") return target.url;
  if (typeof target.host === "string")
    return `${target.protocol}://${target.host}${target.port === undefined ? "" : `:${String(target.port)}`}`;
  return target.protocol;
}

/** The key of a scenario's own message, which replaces its built-in one: ping-pong's and echo-flood's ping, movement-sync's update. */
const TEMPLATE_KEYS: Record<string, string> = {
  "ping-pong": "message",
  "echo-flood": "message",
  "movement-sync": "update",
};

/** The scenario's own message (a template), when it has one; works on a plan and on the form's draft alike. */
export function scenarioTemplate(scenario: Record<string, unknown>): Record<string, unknown> | undefined {
  const key = TEMPLATE_KEYS[String(scenario.kind)];
  const template = key ? scenario[key] : undefined;
  return typeof template === "object" && template !== null ? (template as Record<string, unknown>) : undefined;
}

/** The built-in message's size where the scenario leaves it out (the engine's defaults). */
const BUILT_IN_BYTES: Record<string, number> = { "ping-pong": 64, "movement-sync": 64 };

const positive = (value: unknown): number | null => {
  const number = typeof value === "string" && value.trim() === "" ? NaN : Number(value);
  return Number.isFinite(number) && number > 0 ? number : null;
};

/**
 * Bytes per message the scenario sends, where the plan fixes them: its own message's `sizeBytes`, or its body when
 * that has no placeholders (text and JSON by their UTF-8 bytes, hex by its digits); else the built-in message's size.
 * null where only the running template knows (placeholders, a msgpack or protobuf body). Plans and drafts alike.
 */
export function sentMessageBytes(scenario: Record<string, unknown>): number | null {
  const template = scenarioTemplate(scenario);
  if (!template) return positive(scenario.messageBytes) ?? BUILT_IN_BYTES[String(scenario.kind)] ?? null;
  const padded = positive(template.sizeBytes);
  if (padded !== null) return padded;
  const body = typeof template.body === "string" ? template.body : "";
  const format = typeof template.format === "string" && template.format !== "" ? template.format : "text";
  if (body === "" || body.includes("{{")) return null;
  if (format === "hex") return /^([0-9a-fA-F]{2})+$/.test(body) ? body.length / 2 : null;
  return format === "text" || format === "json" ? new TextEncoder().encode(body).length : null;
}

/** "ping every 1,000 ms, 64 B · ≈ 100 msg/s" for ping-pong ("custom message of 4 B" for its own); the scenario's kind for the others. */
export function describeScenario(spec: PlanSpec): string {
  const scenario = spec.scenario as { kind: string } & Record<string, unknown>;
  if (scenario.kind === "ping-pong" && typeof scenario.intervalMs === "number") {
    const perSec = (spec.load.clients * 1000) / scenario.intervalMs;
    const bytes = sentMessageBytes(scenario);
    const size = bytes === null ? "" : `${formatInteger(bytes)} B`;
    const message = scenarioTemplate(scenario) ? `custom message${size ? ` of ${size}` : ""}` : size;
    return `ping every ${formatInteger(scenario.intervalMs)} ms, ${message} · ≈ ${formatRate(perSec)} msg/s`;
  }
  const script = scenarioScriptHash(spec);
  if (script) return `script ${script.slice(0, 12)}`;
  return scenario.kind;
}

/** The SHA-256 of the stored script a script plan runs; undefined for other plans (or a script by path). */
export function scenarioScriptHash(spec: PlanSpec): string | undefined {
  return spec.scenario.kind === "script" && "sha256" in spec.scenario.script
    ? spec.scenario.script.sha256.toLowerCase()
    : undefined;
}

/** "any online agent", or "2 agents with region=eu · abort if one is lost". */
export function describeAgents(spec: PlanSpec): string {
  const agents = spec.agents;
  if (!agents) return "every online agent";
  const labels = formatLabels(agents.labels);
  // "up to 2 agents", "up to 1 agent", "every online agent" (never "every online agents").
  const who = agents.count
    ? `up to ${formatInteger(agents.count)} agent${agents.count === 1 ? "" : "s"}`
    : "every online agent";
  const matching = labels.length ? ` with ${labels.join(", ")}` : "";
  return `${who}${matching}${agents.onLost === "abort" ? " · abort if one is lost" : ""}`;
}
