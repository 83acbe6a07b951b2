// A run's verdict for a CI gate, from the evidence alone: did the load run as planned for its planned time
// (load-check.ts), did its scenario measure what it exists to measure, and was every SLO met over enough data.
// Never better than the evidence: a run that was aborted, lost an agent, fell short of its send schedule, lost its
// clients, measured none of its scenario's own figure or nothing for an SLO does not pass. Shared by the control
// plane, the standalone agent and the browser, so the report, the API and both command lines say the same.
import type { PlanSpec } from "./plan";
import type { CapacityEstimate, RunVerdict, SloVerdict, VerdictOutcome } from "./report";
import type { RunSummary } from "./run";
import type { AgentHealth, AgentHealthPoint, SeriesPoint } from "./snapshot";
import { checkLoad, steadySeconds } from "./load-check";
import { nothingMeasured } from "./scenario-metrics";
import { judgeSlos, measuredOfSummary } from "./slo-judge";

export interface RunEvidence {
  spec: PlanSpec;
  /** How the run ended: aborted by a user or the plan's policy, failed (nothing measured, or an error), or finished. */
  ended: "finished" | "aborted" | "failed";
  /** Why it ended that way, and anything that went wrong with its agents ("agent X was lost mid-run"). */
  problems: readonly string[];
  summary: RunSummary | null;
  /** Every merged second, in order. */
  seconds: readonly SeriesPoint[];
  /** Epoch second the load started; the first measured second when unknown. */
  startSecond?: number;
  /** An automatic capacity search ended the run on purpose at this epoch second (its answer was in). */
  endedEarlyAtSecond?: number;
  /**
   * Each agent's health in each second it measured (event-loop delay, CPU steal): an agent that stood still is
   * named instead of the server, and heavy steal is flagged.
   */
  agentHealth?: readonly AgentSecond[];
  /**
   * A step-up run's capacity estimate (null: the search produced none), by which it is judged instead of its SLOs.
   * Left out where no estimate is made: the run is then judged by its SLOs.
   */
  capacity?: SearchEvidence | null;
}

/** One agent's health in one second, as the verdict reads it. */
export type AgentSecond = Pick<AgentHealthPoint, "agentId" | "eventLoopP99Ms" | "eventLoopMaxMs" | "stealPercent"> & {
  t: number;
};

/** One agent's second of health as the verdict reads it, under the control plane and standalone alike. */
export function agentSecond(t: number, agentId: string, health: AgentHealth): AgentSecond {
  const { eventLoopP99Ms, eventLoopMaxMs, stealPercent } = health;
  return {
    t,
    agentId,
    eventLoopP99Ms,
    ...(eventLoopMaxMs !== undefined ? { eventLoopMaxMs } : {}),
    ...(stealPercent !== undefined ? { stealPercent } : {}),
  };
}

/** What a capacity search's verdict reads of its estimate. */
export interface SearchEvidence extends Pick<CapacityEstimate, "valid" | "clients" | "problems"> {
  /**
   * No level held in any try, and no agent was the bottleneck: a definite answer (the server holds fewer clients
   * than the search started at), not missing evidence.
   */
  noLevelHeld?: boolean;
  /** Each step's level and whether it held: an automatic search's planned clients, and the broken steps the send schedule leaves out. */
  steps?: readonly { step: number; clients: number; held: boolean }[];
}

/** The search evidence of a control-plane estimate (capacity.ts). */
export function searchEvidence(capacity: CapacityEstimate): SearchEvidence {
  const noLevelHeld =
    capacity.steps.length > 0 &&
    !capacity.steps.some((s) => s.held) &&
    capacity.steps.every((s) => s.saturatedAgents.length === 0);
  const steps = capacity.steps.map(({ step, clients, held }) => ({ step, clients, held }));
  return { valid: capacity.valid, clients: capacity.clients, problems: capacity.problems, noLevelHeld, steps };
}

function searchOutcome(
  capacity: RunEvidence["capacity"],
  minClients: number | undefined,
): { outcome: VerdictOutcome; reasons: string[] } {
  if (!capacity) return { outcome: "incomplete", reasons: ["the capacity search produced no estimate"] };
  if (capacity.noLevelHeld)
    return {
      outcome: "breached",
      reasons: ["no level held: the server holds fewer clients than the search started at"],
    };
  if (!capacity.valid || capacity.clients === null)
    return {
      outcome: "incomplete",
      reasons: capacity.problems.length ? [...capacity.problems] : ["the capacity estimate is not valid"],
    };
  if (minClients !== undefined && capacity.clients < minClients) {
    return {
      outcome: "breached",
      reasons: [`the estimate, ${capacity.clients} clients, is below the plan's minClients (${minClients})`],
    };
  }
  return { outcome: "passed", reasons: [] };
}

const WORST_FIRST: readonly VerdictOutcome[] = ["aborted", "failed", "breached", "incomplete", "passed"];
const worse = (a: VerdictOutcome, b: VerdictOutcome) => (WORST_FIRST.indexOf(a) <= WORST_FIRST.indexOf(b) ? a : b);

/** The run's verdict. A capacity search is judged by its estimate; any other run by its load and its SLOs. */
export function judgeRun(evidence: RunEvidence): RunVerdict {
  const { spec, summary } = evidence;
  const steady = steadySeconds(evidence);
  const slos: SloVerdict[] = summary
    ? judgeSlos(spec.slos ?? [], measuredOfSummary(summary), evidence.seconds, steady)
    : [];
  // A scenario whose own figure measured nothing did not run as planned, with or without SLOs (scenario-metrics.ts).
  const nothing = summary ? nothingMeasured(spec.scenario, summary) : null;
  const { load, reasons, warnings } = checkLoad(evidence, { nothingMatched: nothing !== null });
  if (nothing) reasons.unshift(nothing);
  reasons.unshift(...evidence.problems);
  let outcome: VerdictOutcome =
    evidence.ended === "aborted" ? "aborted" : evidence.ended === "failed" || !summary ? "failed" : "passed";
  if (evidence.problems.length > 0 || reasons.length > 0) outcome = worse(outcome, "incomplete");
  const shape = spec.load.shape;
  if (shape?.kind === "step-up" && evidence.capacity !== undefined) {
    const search = searchOutcome(evidence.capacity, shape.minClients);
    outcome = worse(outcome, search.outcome);
    reasons.push(...search.reasons);
  } else {
    for (const slo of slos) {
      if (slo.status === "breached") {
        outcome = worse(outcome, "breached");
        reasons.push(`SLO breached: ${slo.metric} (${slo.value}, must be below ${slo.below})`);
      } else if (slo.status === "no-data") {
        outcome = worse(outcome, "incomplete");
        reasons.push(`SLO without data: ${slo.metric} (${slo.note ?? "nothing measured it"})`);
      }
    }
  }
  return { passed: outcome === "passed", outcome, reasons, warnings, slos, load };
}
