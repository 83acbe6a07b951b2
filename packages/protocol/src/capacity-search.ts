// The automatic capacity search's decisions, as pure functions of the steps judged so far. One copy for the
// standalone agent (which judges its own seconds) and the control plane (which judges every agent's merged
// seconds), so both climb the same levels for the same verdicts.
import type { LoadShape } from "./plan";

/**
 * coarse: the climb to the first break; settle: back at the last level that held, until it holds again (a
 * server that was overloaded still has a backlog to drain, which would break the first fine step for the
 * wrong reason); fine: the climb between that level and the break.
 */
export const SEARCH_PHASES = ["coarse", "settle", "fine"] as const;
export type SearchPhase = (typeof SEARCH_PHASES)[number];

/** The search's settings, from a plan whose shape is `step-up` with `mode: auto`. */
export interface AutoSearch {
  startClients: number;
  maxClients: number;
  coarseSteps: number;
  fineSteps: number;
  stepDurationSec: number;
}

export const DEFAULT_COARSE_STEPS = 8;
export const DEFAULT_FINE_STEPS = 5;
/** Settle steps after the break before the search gives up on the server recovering. */
export const MAX_SETTLE_STEPS = 3;
/**
 * Times the first level is held again after it broke, before the search concludes the server is below
 * startClients: one transient (a connect spike, a neighbour's burst on a shared host) must not end a search.
 */
export const MAX_FIRST_STEP_RETRIES = 2;

/** The automatic search a plan asks for, or null when its load shape is not an automatic step-up. */
export function autoSearchOf(load: LoadShape): AutoSearch | null {
  const shape = load.shape;
  if (shape?.kind !== "step-up" || shape.mode !== "auto") return null;
  return {
    startClients: shape.startClients,
    maxClients: load.clients,
    coarseSteps: shape.coarseSteps ?? DEFAULT_COARSE_STEPS,
    fineSteps: shape.fineSteps ?? DEFAULT_FINE_STEPS,
    stepDurationSec: shape.stepDurationSec,
  };
}

/** `count` levels spread evenly from `from` to `to` (both included), rounded, without repeats. */
export function coarseLevels(search: Pick<AutoSearch, "startClients" | "maxClients" | "coarseSteps">): number[] {
  const { startClients: from, maxClients: to, coarseSteps: count } = search;
  const levels = Array.from({ length: count }, (_, i) => Math.round(from + ((to - from) * i) / (count - 1)));
  return [...new Set(levels)];
}

/** The levels strictly between the last held and the broken coarse level, `fineSteps` increments apart. */
export function fineLevels(held: number, broke: number, fineSteps: number): number[] {
  const levels = Array.from({ length: fineSteps - 1 }, (_, i) =>
    Math.round(held + ((broke - held) * (i + 1)) / fineSteps),
  );
  return [...new Set(levels)].filter((n) => n > held && n < broke);
}

/** A step the search ran, and whether it held every SLO over its steady seconds. */
export interface JudgedStep {
  clients: number;
  phase: SearchPhase;
  held: boolean;
  /** The first level held again after it broke (a coarse step at the level before it); see MAX_FIRST_STEP_RETRIES. */
  retry?: boolean | undefined;
}

export type SearchEnd = "first-step-broke" | "max-reached" | "no-recovery" | "fine-step-broke" | "fine-range-exhausted";

export type SearchDecision =
  | { done: false; clients: number; phase: SearchPhase; retry?: true }
  | { done: true; reason: SearchEnd };

/** Why a search ended, in words for logs and the run's events. */
export const SEARCH_END_TEXT: Record<SearchEnd, string> = {
  "first-step-broke": `the first step broke an SLO in all ${1 + MAX_FIRST_STEP_RETRIES} tries`,
  "max-reached": "every coarse step up to load.clients held",
  "no-recovery": `the last level that held did not hold again in ${MAX_SETTLE_STEPS} settle steps after the break (the server did not recover)`,
  "fine-step-broke": "a fine step broke an SLO",
  "fine-range-exhausted": "every fine step below the broken coarse step held",
};

/**
 * The next level to hold, given the steps judged so far in the order they ran: coarse levels from
 * startClients to load.clients until one breaks (the first level held again, up to MAX_FIRST_STEP_RETRIES
 * times, when it is the one that broke); then back to the last coarse level that held until it holds
 * again (settle); then the fine levels between it and the one that broke, climbing until one breaks or none
 * is left.
 */
export function nextSearchStep(search: AutoSearch, judged: readonly JudgedStep[]): SearchDecision {
  const tried = judged.filter((s) => s.phase === "coarse");
  // Coarse levels never repeat, so a coarse step at the level of the one before it is a retry: the try before it
  // is superseded (told apart by level, not by a flag, so the control plane's stored steps need none).
  const coarse = tried.filter((s, i) => tried[i + 1]?.clients !== s.clients);
  const retries = tried.length - coarse.length;
  const fine = judged.filter((s) => s.phase === "fine");
  const levels = coarseLevels(search);
  const brokeAt = coarse.findIndex((s) => !s.held);
  if (brokeAt === -1) {
    if (coarse.length >= levels.length) return { done: true, reason: "max-reached" };
    return { done: false, clients: levels[coarse.length]!, phase: "coarse" };
  }
  if (brokeAt === 0) {
    if (retries < MAX_FIRST_STEP_RETRIES)
      return { done: false, clients: coarse[0]!.clients, phase: "coarse", retry: true };
    return { done: true, reason: "first-step-broke" };
  }
  const lastHeld = coarse[brokeAt - 1]!.clients;
  const between = fineLevels(lastHeld, coarse[brokeAt]!.clients, search.fineSteps);
  if (between.length === 0) return { done: true, reason: "fine-range-exhausted" };
  const settle = judged.filter((s) => s.phase === "settle");
  if (!settle.some((s) => s.held)) {
    if (settle.length >= MAX_SETTLE_STEPS) return { done: true, reason: "no-recovery" };
    return { done: false, clients: lastHeld, phase: "settle" };
  }
  if (fine.some((s) => !s.held)) return { done: true, reason: "fine-step-broke" };
  if (fine.length >= between.length) return { done: true, reason: "fine-range-exhausted" };
  return { done: false, clients: between[fine.length]!, phase: "fine" };
}

/** A level the agents hold from `startAt` (epoch ms, server clock); its seconds count as `step` for stepDurationSec. */
export interface SearchLevel {
  step: number;
  clients: number;
  phase: SearchPhase;
  startAt: number;
}

/**
 * When a level decided at `now` for a step that ended at `stepEnd` starts: at once on the step's end when
 * the decision came within half a second of it (the standalone agent), else on the next whole second of the
 * run's grid, so every agent's seconds stay aligned.
 */
export function nextLevelStart(runStartAt: number, stepEnd: number, now: number): number {
  if (now < stepEnd + 500) return stepEnd;
  return runStartAt + Math.ceil((now - runStartAt) / 1000) * 1000;
}

/** One agent's second of a step, as the judge reads it. */
export interface StepSecond {
  second: number;
  /** Clients started (the level this agent was holding at the second's end). */
  clients: number;
  /** Connections open at the second's end. */
  connectionsOpen: number;
}

/** Open connections within this share of the level count as at it (a client reconnecting among 1,000 does not). */
export const AT_LEVEL_SHARE = 0.01;

/**
 * The seconds a step is judged on, its steady ones: those after the second in which its connections (summed
 * over agents) reached the level, climbing to it or, after a higher step, coming down to it. The seconds
 * before, still opening connections, can hold a connect spike that says nothing about the level (a search
 * once ended at its first step for one such second). When the connections never settle at the level before
 * the step's last second, the step is judged, as before, on its seconds less the first.
 */
export function steadySeconds<T>(rows: readonly T[], of: (row: T) => StepSecond): T[] {
  const bySecond = new Map<number, { clients: number; open: number }>();
  for (const row of rows) {
    const { second, clients, connectionsOpen } = of(row);
    const sums = bySecond.get(second) ?? { clients: 0, open: 0 };
    sums.clients += clients;
    sums.open += connectionsOpen;
    bySecond.set(second, sums);
  }
  const seconds = [...bySecond.entries()].sort(([a], [b]) => a - b);
  // The level: the lower median of the seconds' counts (a last second may already count the next level's clients).
  const counts = seconds.map(([, s]) => s.clients).sort((a, b) => a - b);
  const level = counts[Math.floor((counts.length - 1) / 2)] ?? 0;
  const reached = seconds.findIndex(([, s]) => Math.abs(s.open - level) <= Math.floor(level * AT_LEVEL_SHARE));
  if (reached !== -1 && reached < seconds.length - 1) {
    const from = seconds[reached + 1]![0];
    return rows.filter((row) => of(row).second >= from);
  }
  const first = seconds[0]?.[0];
  return seconds.length > 2 ? rows.filter((row) => of(row).second !== first) : [...rows];
}

/** A judged step as the estimate reads it; a fixed step-up's steps have no phase. */
export type EvidenceStep = Omit<JudgedStep, "phase"> & { phase?: SearchPhase | undefined };

/**
 * Whether a step counts for or against an estimate (`next` is the step after it): settle steps measure a server
 * draining its backlog, not what it holds, and a try of the first level that a retry superseded was a transient.
 */
const counts = (step: EvidenceStep, next: EvidenceStep | undefined) =>
  step.phase !== "settle" && (step.held || !next?.retry);

/**
 * The estimate from judged steps in the order they ran: the largest held level below every broken level (an
 * automatic search goes back down for its fine phase, so "the step before the first break" is not enough).
 * Settle steps and superseded first tries count neither way. Null when no held step lies below the lowest break.
 */
export function largestHeldBelowBreaks<T extends EvidenceStep>(steps: readonly T[]): T | null {
  const counted = steps.filter((s, i) => counts(s, steps[i + 1]));
  const lowestBreak = Math.min(...counted.filter((s) => !s.held).map((s) => s.clients));
  let best: T | null = null;
  for (const step of counted)
    if (step.held && step.clients < lowestBreak && (best === null || step.clients > best.clients)) best = step;
  return best;
}

/** What judged steps say about capacity: one reading for the report (core) and the standalone agent's verdict line. */
export interface SearchAnswer<T> {
  /** The estimate: the largest level held below every break that nothing after it contradicts; null when none. */
  held: T | null;
  /** The largest level held below every break, before weighing what came after it; `held` unless contradicted. */
  lastHeld: T | null;
  /** The lowest level that broke (settle steps and superseded first tries left out); null when none broke. */
  lowestBreak: number | null;
  /** Steps after lastHeld, at or below its level, that broke with no hold of its level after them: it did not hold again. */
  notHeldAgain: T[];
  /** When lastHeld is contradicted and a lower level held uncontradicted: capacity lies between the two. */
  range: { from: number; to: number } | null;
  /** Tries of the first level held again after it broke. */
  retries: number;
}

/** The steps after `step` that broke at or below its level, when no step after the last of them held its level again. */
function contradictions<T extends EvidenceStep>(steps: readonly T[], step: T): T[] {
  const after = steps.slice(steps.indexOf(step) + 1);
  const lastBreak = after.findLastIndex((s) => !s.held && s.clients <= step.clients);
  if (lastBreak === -1 || after.slice(lastBreak + 1).some((s) => s.held && s.clients >= step.clients)) return [];
  return after.filter((s) => !s.held && s.clients <= step.clients);
}

/**
 * Reads judged steps, in the order they ran. A level that held and later broke at or below itself and never
 * held again (an automatic search's settle steps all broke: the server did not recover) is not claimed as
 * held: the evidence after it contradicts it. `range` then says what is known, from a lower level that held.
 */
export function searchAnswer<T extends EvidenceStep>(steps: readonly T[]): SearchAnswer<T> {
  const counted = steps.filter((s, i) => counts(s, steps[i + 1]));
  const breaks = counted.filter((s) => !s.held).map((s) => s.clients);
  const lastHeld = largestHeldBelowBreaks(steps);
  const notHeldAgain = lastHeld ? contradictions(steps, lastHeld) : [];
  const lower =
    notHeldAgain.length === 0
      ? []
      : counted.filter((s) => s.held && s.clients < lastHeld!.clients && contradictions(steps, s).length === 0);
  const from = lower.length > 0 ? Math.max(...lower.map((s) => s.clients)) : null;
  return {
    held: notHeldAgain.length > 0 ? null : lastHeld,
    lastHeld,
    lowestBreak: breaks.length > 0 ? Math.min(...breaks) : null,
    notHeldAgain,
    range: from !== null && lastHeld ? { from, to: lastHeld.clients } : null,
    retries: steps.filter((s) => s.retry).length,
  };
}
