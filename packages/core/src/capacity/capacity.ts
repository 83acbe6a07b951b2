import { AgentHealth } from "@throng/protocol/snapshot";
import type { LoadShape, Slo } from "@throng/protocol/plan";
import { autoSearchOf, holdSeconds, largestHeldBelowBreaks, type AutoSearch } from "@throng/protocol/capacity-search";
import type { CapacityEstimate, CapacityStep } from "@throng/protocol/report";
import type { SnapshotRow } from "@throng/db/repos/snapshots";
import { buildSeries, summarize } from "../metrics/series";
import { judgeSlos, measuredOfSummary } from "./slo";
import { fitUsl } from "./usl";

/** A step's marginal throughput per added client below this share of the first step's means the knee. */
const KNEE_SLOPE_SHARE = 0.5;

/**
 * The clients a step held: the lower median of its seconds' counts, not the peak. A second at the step's end
 * can already count some of the next level's clients (its snapshot taken a moment after the next ramp began),
 * and a peak then named the step after the next level (an 18-client step read as 20 in the accuracy test).
 */
function heldClients(points: readonly { clients: number }[]): number {
  const counts = points.map((p) => p.clients).sort((a, b) => a - b);
  return counts[Math.floor((counts.length - 1) / 2)] ?? 0;
}

/** One step's figures and verdicts over its hold; the control plane's capacity search judges each step with it too. */
export function measureStep(step: number, rows: readonly SnapshotRow[], slos: readonly Slo[]): CapacityStep {
  // The step's first second is still moving to its client count: judge the hold after it.
  const hold = holdSeconds(rows, (r) => r.second);
  const summary = summarize(hold);
  const series = buildSeries(hold);
  const verdicts = judgeSlos(slos, measuredOfSummary(summary), series);
  const saturated = new Map<string, string>();
  for (const row of hold) {
    const health = AgentHealth.parse(row.health);
    if (health.saturated && !saturated.has(row.agentId)) saturated.set(row.agentId, health.saturatedReason ?? "saturated");
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

/** Steps in order of their client count (an automatic search's fine phase goes back down). */
function kneeOf(unordered: readonly CapacityStep[]): number | null {
  const steps = [...unordered].sort((a, b) => a.clients - b.clients || a.step - b.step);
  const first = steps[0];
  if (!first || first.clients === 0) return null;
  const initialSlope = first.throughputPerSec / first.clients;
  for (let i = 1; i < steps.length; i++) {
    const prev = steps[i - 1]!;
    const cur = steps[i]!;
    const added = cur.clients - prev.clients;
    if (added > 0 && (cur.throughputPerSec - prev.throughputPerSec) / added < KNEE_SLOPE_SHARE * initialSlope) return prev.clients;
  }
  return null;
}

/**
 * Each step's phase in an automatic search: coarse levels only climb; after the break the search goes back
 * down to the last coarse level that held and settles there (same level) until it holds again; every step
 * after that climbs above it and is fine.
 */
function withPhases(steps: readonly CapacityStep[]): CapacityStep[] {
  const firstDown = steps.findIndex((s, i) => i > 0 && s.clients < steps[i - 1]!.clients);
  const lastHeld = firstDown >= 2 ? steps[firstDown - 2]!.clients : null;
  let settling = true;
  return steps.map((s, i) => {
    if (firstDown === -1 || i < firstDown) return { ...s, phase: "coarse" };
    settling &&= s.clients === lastHeld;
    return { ...s, phase: settling ? "settle" : "fine" };
  });
}

/** "Searched coarse steps of 200, then 40 between 800 and 1,000." */
function searchSentence(search: AutoSearch, steps: readonly CapacityStep[]): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const coarse = steps.filter((s) => s.phase === "coarse");
  const settled = steps.filter((s) => s.phase === "settle").length;
  const coarseSize = Math.round((search.maxClients - search.startClients) / (search.coarseSteps - 1));
  const broke = coarse.findIndex((s) => !s.held);
  if (broke <= 0 || !steps.some((s) => s.phase === "fine")) return `Searched coarse steps of ${n(coarseSize)}.`;
  const from = coarse[broke - 1]!.clients;
  const to = coarse[broke]!.clients;
  const settling = settled > 0 ? ` (after ${settled} settle step${settled === 1 ? "" : "s"} back at ${n(from)} while the server recovered)` : "";
  return `Searched coarse steps of ${n(coarseSize)}, then ${n(Math.round((to - from) / search.fineSteps))} between ${n(from)} and ${n(to)}${settling}.`;
}

function describe(estimate: Omit<CapacityEstimate, "sentence">, slos: readonly Slo[]): string {
  const held = slos.map((s) => `${s.metric} < ${s.below}`).join(", ") || "no SLOs";
  const prefix = estimate.valid ? "" : "Not a valid estimate (" + estimate.problems.join("; ") + "): ";
  if (estimate.clients === null) return `${prefix}Broke at the first step (${estimate.breakingSlos.join(", ")}): capacity is below ${estimate.steps[0]?.clients ?? 0} clients.`;
  const breaking = estimate.breakingStep === null ? "no SLO broke up to the last step, so this is a lower bound" : `broke at ${estimate.steps.find((s) => s.step === estimate.breakingStep)?.clients} clients on ${estimate.breakingSlos.join(", ")}`;
  return `${prefix}Holds ${estimate.clients.toLocaleString("en-US")} clients while meeting ${held}; ${breaking}.`;
}

/**
 * The capacity estimate of a step-up run: the largest step, below every one that broke, that held every
 * SLO over its whole hold; the knee where throughput stops growing; a USL fit; and whether an agent, not
 * the server, was the limit in the steps that decide it (then the estimate is not valid).
 */
export function analyzeCapacity(rows: readonly SnapshotRow[], slos: readonly Slo[], load?: LoadShape): CapacityEstimate | null {
  const byStep = new Map<number, SnapshotRow[]>();
  for (const row of rows) if (row.step !== null && row.step !== undefined) byStep.set(row.step, [...(byStep.get(row.step) ?? []), row]);
  if (byStep.size === 0) return null;
  const search = load ? autoSearchOf(load) : null;
  const measured = [...byStep.entries()].sort(([a], [b]) => a - b).map(([step, list]) => measureStep(step, list, slos));
  const steps = search ? withPhases(measured) : measured;
  const estimateStep = largestHeldBelowBreaks(steps);
  const climbing = steps.filter((s) => s.phase !== "settle");
  // The lowest level that broke (the first break of a climb; an automatic search's fine break below its coarse one).
  const breaking = steps.filter((s) => !s.held && s.phase !== "settle").sort((a, b) => a.clients - b.clients || a.step - b.step)[0] ?? null;
  const deciding = [estimateStep, breaking].filter((s): s is CapacityStep => s !== null);
  const problems = deciding.flatMap((s) => s.saturatedAgents.map((a) => `agent ${a.agentId} was saturated at ${s.clients} clients (${a.reason})`));
  const estimate = {
    clients: estimateStep?.clients ?? null,
    valid: problems.length === 0 && estimateStep !== null,
    problems: estimateStep === null ? [...problems, "the first step already broke an SLO"] : problems,
    breakingStep: breaking?.step ?? null,
    breakingSlos: breaking?.slos.filter((v) => !v.passed).map((v) => v.metric) ?? [],
    // A settle step's throughput includes the backlog it drains: not a point of throughput against clients.
    kneeClients: kneeOf(climbing),
    usl: fitUsl(climbing.map((s) => ({ clients: s.clients, throughput: s.throughputPerSec }))),
    steps,
  };
  return { ...estimate, sentence: search ? `${describe(estimate, slos)} ${searchSentence(search, steps)}` : describe(estimate, slos) };
}
