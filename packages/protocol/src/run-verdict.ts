// A run's verdict for a CI gate, from the evidence alone: did the load run as planned for its planned time, and
// was every SLO met over enough data. Never better than the evidence: a run that was aborted, lost an agent, fell
// short of its send schedule, lost its clients or measured nothing for an SLO does not pass. Shared by the control
// plane, the standalone agent and the browser, so the report, the API and both command lines say the same.
import type { PlanSpec } from "./plan";
import type { CapacityEstimate, LoadCheck, RunVerdict, SloVerdict, VerdictOutcome } from "./report";
import type { RunSummary } from "./run";
import type { SeriesPoint } from "./snapshot";
import { judgeSlos, measuredOfSummary } from "./slo-judge";

/** A steady second whose sends fall more than this short of its schedule is short. */
const SHORT_SECOND = 0.9;
/** The load is short of its schedule below this share of the scheduled sends, or with more short seconds than this share. */
const SCHEDULE_SHARE = 0.95;
const SHORT_SECONDS_SHARE = 0.05;
/** Fewer clients connected than this share of the planned ones in a steady second: the load did not hold. */
const CONNECTED_SHARE = 0.9;
/** Seconds the measurements may fall short of the planned time (the first and the closing partial second). */
const SECONDS_SLACK = 2;
/** Median CPU steal over the run above this (percent) flags the run as measured under heavy steal. */
const HEAVY_STEAL_PERCENT = 10;

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
  /** The highest CPU steal among the agents each second (percent), where measured. */
  stealPercents?: readonly number[];
  /**
   * A step-up run's capacity estimate (null: the search produced none), by which it is judged instead of its SLOs.
   * Left out where no estimate is made: the run is then judged by its SLOs.
   */
  capacity?: SearchEvidence | null;
}

/** What a capacity search's verdict reads of its estimate. */
export interface SearchEvidence extends Pick<CapacityEstimate, "valid" | "clients" | "problems"> {
  /**
   * No level held in any try, and no agent was the bottleneck: a definite answer (the server holds fewer clients
   * than the search started at), not missing evidence.
   */
  noLevelHeld?: boolean;
}

/** The search evidence of a control-plane estimate (capacity.ts). */
export function searchEvidence(capacity: CapacityEstimate): SearchEvidence {
  const noLevelHeld = capacity.steps.length > 0 && !capacity.steps.some((s) => s.held) && capacity.steps.every((s) => s.saturatedAgents.length === 0);
  return { valid: capacity.valid, clients: capacity.clients, problems: capacity.problems, noLevelHeld };
}

/** The seconds under the planned load: after the ramp and the first second, before the closing partial second. */
export function steadySeconds(evidence: Pick<RunEvidence, "spec" | "seconds" | "startSecond">): SeriesPoint[] {
  const { spec, seconds } = evidence;
  if (seconds.length === 0) return [];
  const start = evidence.startSecond ?? seconds[0]!.t;
  const from = start + Math.max(1, spec.load.rampUpSec);
  const until = start + spec.load.durationSec - 1;
  return seconds.filter((point) => point.t >= from && point.t < until && point.t < seconds[seconds.length - 1]!.t);
}

const clientsHeld = (spec: PlanSpec) => !(spec.scenario.kind === "login-storm" && spec.scenario.hold === false);

/** Whether the load ran as the plan said, and the reasons it did not. */
export function checkLoad(evidence: RunEvidence): { load: LoadCheck; reasons: string[]; warnings: string[] } {
  const { spec, seconds, summary } = evidence;
  const start = evidence.startSecond ?? seconds[0]?.t;
  const plannedSeconds = evidence.endedEarlyAtSecond !== undefined && start !== undefined
    ? Math.max(0, Math.min(spec.load.durationSec, evidence.endedEarlyAtSecond - start))
    : spec.load.durationSec;
  const steady = steadySeconds(evidence);
  let scheduledSends = 0;
  let sentSends = 0;
  let skipped = 0;
  let shortSeconds = 0;
  let scheduledSeconds = 0;
  let minConnectedShare: number | null = null;
  let leastConnected: SeriesPoint | undefined;
  for (const [i, point] of steady.entries()) {
    const sent = point.messagesSentPerSec + (point.skippedSends ?? 0);
    skipped += point.skippedSends ?? 0;
    if (point.scheduledSends !== undefined && point.scheduledSends > 0) {
      scheduledSeconds += 1;
      scheduledSends += point.scheduledSends;
      sentSends += sent;
      if (sent < point.scheduledSends * SHORT_SECOND) shortSeconds += 1;
    }
    // Only seconds at a held level: clients still connecting to a level just raised are not clients lost.
    const held = i >= 2 && steady[i - 1]!.clients === point.clients && steady[i - 2]!.clients === point.clients;
    if (held && point.clients > 0) {
      const share = Math.min(1, point.connections / point.clients);
      if (minConnectedShare === null || share < minConnectedShare) [minConnectedShare, leastConnected] = [share, point];
    }
  }
  const inFlightAtEnd = summary?.inFlightAtEnd ?? 0;
  const load: LoadCheck = { plannedSeconds, measuredSeconds: seconds.length, scheduledSends, sentSends, shortSeconds, minConnectedShare, inFlightAtEnd };
  const reasons: string[] = [];
  const warnings: string[] = [];
  if (seconds.length < plannedSeconds - SECONDS_SLACK) {
    reasons.push(`measurements cover ${seconds.length} of the ${plannedSeconds} planned seconds`);
  }
  if (scheduledSends > 0 && (sentSends < scheduledSends * SCHEDULE_SHARE || shortSeconds > Math.max(1, scheduledSeconds * SHORT_SECONDS_SHARE))) {
    reasons.push(`the load fell short of its schedule: ${sentSends} of ${scheduledSends} scheduled messages sent, ${shortSeconds} of ${scheduledSeconds} seconds more than ${Math.round((1 - SHORT_SECOND) * 100)}% short`);
  }
  if (clientsHeld(spec) && minConnectedShare !== null && minConnectedShare < CONNECTED_SHARE && leastConnected) {
    reasons.push(`only ${leastConnected.connections} of ${leastConnected.clients} clients were connected at ${new Date(leastConnected.t * 1000).toISOString()}`);
  }
  if (skipped > 0 && sentSends > 0 && skipped > sentSends * 0.01) {
    warnings.push(`${skipped} sends were skipped because the client's previous message was still unanswered (the server answered slower than the send interval)`);
  }
  if (summary?.saturatedAgents?.length) {
    const [first] = summary.saturatedAgents;
    warnings.push(`${summary.saturatedAgents.length} agent(s) were the bottleneck for up to ${Math.max(...summary.saturatedAgents.map((a) => a.seconds))} s (${first!.reason}): the figures understate the server`);
  }
  const steal = [...(evidence.stealPercents ?? [])].sort((a, b) => a - b);
  if (steal.length > 0) {
    const median = steal[Math.floor(steal.length / 2)]!;
    if (median >= HEAVY_STEAL_PERCENT) warnings.push(`measured under heavy CPU steal: the hypervisor took a median ${median.toFixed(1)}% (peak ${steal[steal.length - 1]!.toFixed(1)}%) of the agents' host CPU`);
  }
  if (inFlightAtEnd > 0) warnings.push(`${inFlightAtEnd === 1 ? "1 message was" : `${inFlightAtEnd} messages were`} still in flight when the run ended (counted apart: not errors, not lost)`);
  return { load, reasons, warnings };
}

function searchOutcome(capacity: RunEvidence["capacity"], minClients: number | undefined): { outcome: VerdictOutcome; reasons: string[] } {
  if (!capacity) return { outcome: "incomplete", reasons: ["the capacity search produced no estimate"] };
  if (capacity.noLevelHeld) return { outcome: "breached", reasons: ["no level held: the server holds fewer clients than the search started at"] };
  if (!capacity.valid || capacity.clients === null) return { outcome: "incomplete", reasons: capacity.problems.length ? [...capacity.problems] : ["the capacity estimate is not valid"] };
  if (minClients !== undefined && capacity.clients < minClients) {
    return { outcome: "breached", reasons: [`the estimate, ${capacity.clients} clients, is below the plan's minClients (${minClients})`] };
  }
  return { outcome: "passed", reasons: [] };
}

const WORST_FIRST: readonly VerdictOutcome[] = ["aborted", "failed", "breached", "incomplete", "passed"];
const worse = (a: VerdictOutcome, b: VerdictOutcome) => (WORST_FIRST.indexOf(a) <= WORST_FIRST.indexOf(b) ? a : b);

/** The run's verdict. A capacity search is judged by its estimate; any other run by its load and its SLOs. */
export function judgeRun(evidence: RunEvidence): RunVerdict {
  const { spec, summary } = evidence;
  const steady = steadySeconds(evidence);
  const slos: SloVerdict[] = summary ? judgeSlos(spec.slos ?? [], measuredOfSummary(summary), evidence.seconds, steady) : [];
  const { load, reasons, warnings } = checkLoad(evidence);
  reasons.unshift(...evidence.problems);
  let outcome: VerdictOutcome = evidence.ended === "aborted" ? "aborted" : evidence.ended === "failed" || !summary ? "failed" : "passed";
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
