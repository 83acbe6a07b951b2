import type { PlanSpec } from "@throng/protocol/plan";
import { formatDuration, formatInteger, formatRate } from "./format";
import { formatLabels } from "./labels";

/** "100 clients · 30 s (ramp-up 10 s)". */
export function describeLoad(spec: PlanSpec): string {
  const ramp = spec.load.rampUpSec > 0 ? ` (ramp-up ${formatDuration(spec.load.rampUpSec)})` : "";
  return `${formatInteger(spec.load.clients)} clients · ${formatDuration(spec.load.durationSec)}${ramp}`;
}

/** Where the load goes, whatever the transport: its URL, or host:port. */
export function describeTarget(spec: PlanSpec): string {
  const target = spec.target as { protocol: string } & Record<string, unknown>;
  if (typeof target.url === "string") return target.url;
  if (typeof target.host === "string") return `${target.protocol}://${target.host}${target.port === undefined ? "" : `:${String(target.port)}`}`;
  return target.protocol;
}

/** "ping every 1,000 ms, 64 B · ≈ 100 msg/s" for ping-pong; the scenario's kind for the others. */
export function describeScenario(spec: PlanSpec): string {
  const scenario = spec.scenario as { kind: string } & Record<string, unknown>;
  if (scenario.kind === "ping-pong" && typeof scenario.intervalMs === "number" && typeof scenario.messageBytes === "number") {
    const perSec = (spec.load.clients * 1000) / scenario.intervalMs;
    return `ping every ${formatInteger(scenario.intervalMs)} ms, ${formatInteger(scenario.messageBytes)} B · ≈ ${formatRate(perSec)} msg/s`;
  }
  const script = scenarioScriptHash(spec);
  if (script) return `script ${script.slice(0, 12)}`;
  return scenario.kind;
}

/** The SHA-256 of the stored script a script plan runs; undefined for other plans (or a script by path). */
export function scenarioScriptHash(spec: PlanSpec): string | undefined {
  return spec.scenario.kind === "script" && "sha256" in spec.scenario.script ? spec.scenario.script.sha256.toLowerCase() : undefined;
}

/** "any online agent", or "2 agents with region=eu · abort if one is lost". */
export function describeAgents(spec: PlanSpec): string {
  const agents = spec.agents;
  if (!agents) return "every online agent";
  const labels = formatLabels(agents.labels);
  // "up to 2 agents", "up to 1 agent", "every online agent" (never "every online agents").
  const who = agents.count ? `up to ${formatInteger(agents.count)} agent${agents.count === 1 ? "" : "s"}` : "every online agent";
  const matching = labels.length ? ` with ${labels.join(", ")}` : "";
  return `${who}${matching}${agents.onLost === "abort" ? " · abort if one is lost" : ""}`;
}
