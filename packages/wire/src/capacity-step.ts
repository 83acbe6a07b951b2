// One step of a step-up run judged over its steady seconds: the control plane's capacity search (each step as it
// ends) and estimate, and `throng-agent run`'s own search and fixed steps, all with this one function, so a plan
// gets the same answer standalone and in CI.
import { AgentHealth, type SnapshotCounters } from "@throng/protocol/snapshot";
import type { Slo } from "@throng/protocol/plan";
import { steadySeconds } from "@throng/protocol/capacity-search";
import type { CapacityStep } from "@throng/protocol/report";
import { judgeSlos, measuredOfSummary } from "@throng/protocol/slo-judge";
import { buildSeries, summariseRun } from "./run-summary";
import type { StoredSnapshot } from "@throng/protocol/snapshot";

/**
 * The clients a step held: the lower median of its seconds' counts, not the peak. A second at the step's end
 * can already count some of the next level's clients (its snapshot taken a moment after the next ramp began),
 * and a peak then named the step after the next level (an 18-client step read as 20 in the accuracy test).
 */
function heldClients(points: readonly { clients: number }[]): number {
  const counts = points.map((p) => p.clients).sort((a, b) => a - b);
  return counts[Math.floor((counts.length - 1) / 2)] ?? 0;
}

/** One step's figures and its SLOs' verdicts over its steady seconds: it held when every SLO was met over them. */
export function measureStep(step: number, rows: readonly StoredSnapshot[], slos: readonly Slo[]): CapacityStep {
  // Seconds still moving to the step's client count (connecting, or stopping clients) say nothing about the level.
  // Counters were validated when the snapshot arrived (ingest, or the agent's own engines).
  const hold = steadySeconds(rows, (r) => ({
    second: r.second,
    clients: r.clients,
    connectionsOpen: (r.counters as SnapshotCounters).connectionsOpen,
  }));
  const summary = summariseRun(hold);
  const series = buildSeries(hold);
  const verdicts = judgeSlos(slos, measuredOfSummary(summary), series);
  const saturated = new Map<string, string>();
  for (const row of hold) {
    const health = AgentHealth.parse(row.health);
    if (health.saturated && !saturated.has(row.agentId))
      saturated.set(row.agentId, health.saturatedReason ?? "saturated");
  }
  return {
    step,
    clients: heldClients(series),
    seconds: new Set(hold.map((r) => r.second)).size,
    throughputPerSec: summary.messagesPerSec,
    rttP99Ms: summary.rttP99Ms,
    slos: verdicts,
    held: verdicts.every((v) => v.passed),
    saturatedAgents: [...saturated.entries()].map(([agentId, reason]) => ({ agentId, reason })),
  };
}
