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
  const levels = Array.from({ length: fineSteps - 1 }, (_, i) => Math.round(held + ((broke - held) * (i + 1)) / fineSteps));
  return [...new Set(levels)].filter((n) => n > held && n < broke);
}

/** A step the search ran, and whether it held every SLO for its whole hold. */
export interface JudgedStep {
  clients: number;
  phase: SearchPhase;
  held: boolean;
}

export type SearchEnd = "first-step-broke" | "max-reached" | "no-recovery" | "fine-step-broke" | "fine-range-exhausted";

export type SearchDecision = { done: false; clients: number; phase: SearchPhase } | { done: true; reason: SearchEnd };

/** Why a search ended, in words for logs and the run's events. */
export const SEARCH_END_TEXT: Record<SearchEnd, string> = {
  "first-step-broke": "the first step already broke an SLO",
  "max-reached": "every coarse step up to load.clients held",
  "no-recovery": `the last level that held did not hold again in ${MAX_SETTLE_STEPS} settle steps after the break (the server did not recover)`,
  "fine-step-broke": "a fine step broke an SLO",
  "fine-range-exhausted": "every fine step below the broken coarse step held",
};

/**
 * The next level to hold, given the steps judged so far in the order they ran: coarse levels from
 * startClients to load.clients until one breaks; then back to the last coarse level that held until it holds
 * again (settle); then the fine levels between it and the one that broke, climbing until one breaks or none
 * is left.
 */
export function nextSearchStep(search: AutoSearch, judged: readonly JudgedStep[]): SearchDecision {
  const coarse = judged.filter((s) => s.phase === "coarse");
  const fine = judged.filter((s) => s.phase === "fine");
  const levels = coarseLevels(search);
  const brokeAt = coarse.findIndex((s) => !s.held);
  if (brokeAt === -1) {
    if (coarse.length >= levels.length) return { done: true, reason: "max-reached" };
    return { done: false, clients: levels[coarse.length]!, phase: "coarse" };
  }
  if (brokeAt === 0) return { done: true, reason: "first-step-broke" };
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

/**
 * The seconds a step is judged on: its first second is still moving to the new level (starting, or for a
 * fine step after a higher one, stopping clients), so it is left out when the step has more than two.
 */
export function holdSeconds<T>(rows: readonly T[], secondOf: (row: T) => number): T[] {
  const first = Math.min(...rows.map(secondOf));
  const seconds = new Set(rows.map(secondOf)).size;
  return seconds > 2 ? rows.filter((row) => secondOf(row) !== first) : [...rows];
}

/**
 * The estimate from judged steps in any order: the largest held level below every broken level (an automatic
 * search goes back down for its fine phase, so "the step before the first break" is not enough). Settle steps
 * measure a server draining its backlog, not what it holds: they count neither way. Null when no held step
 * lies below the lowest break.
 */
export function largestHeldBelowBreaks<T extends { clients: number; held: boolean; phase?: SearchPhase | undefined }>(all: readonly T[]): T | null {
  const steps = all.filter((s) => s.phase !== "settle");
  const lowestBreak = Math.min(...steps.filter((s) => !s.held).map((s) => s.clients));
  let best: T | null = null;
  for (const step of steps) if (step.held && step.clients < lowestBreak && (best === null || step.clients > best.clients)) best = step;
  return best;
}
