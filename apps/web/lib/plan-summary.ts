import type { PlanSpec } from "@throng/protocol/plan";
import { formatDuration, formatInteger, formatRate } from "./format";

/** One line describing what a plan does: "100 clients · 30 s · ping every 1000 ms (64 B)". */
export function describeLoad(spec: PlanSpec): string {
  const ramp = spec.load.rampUpSec > 0 ? ` (ramp-up ${formatDuration(spec.load.rampUpSec)})` : "";
  return `${formatInteger(spec.load.clients)} clients · ${formatDuration(spec.load.durationSec)}${ramp}`;
}

export function describeScenario(spec: PlanSpec): string {
  const { intervalMs, messageBytes } = spec.scenario;
  const perSec = (spec.load.clients * 1000) / intervalMs;
  return `ping every ${formatInteger(intervalMs)} ms, ${formatInteger(messageBytes)} B · ≈ ${formatRate(perSec)} msg/s`;
}
