import type { SearchLevel } from "@throng/protocol/capacity-search";
import type { LoadShape, Scenario } from "@throng/protocol/plan";
import { fixedStepAt, shapeClientsAt } from "@throng/protocol/planned-load";

/** How many of this shard's clients should be running `elapsedMs` after startAt, and (step-up) which step it is. */
export interface LoadSchedule {
  clientsAt(elapsedMs: number): number;
  /** The step a second starting `elapsedMs` after startAt belongs to; undefined between an automatic search's steps. */
  stepAt?(elapsedMs: number): number | undefined;
  /** True when clients may be stopped before the end (a stage that ramps down). */
  rampsDown: boolean;
  /** Automatic search: hold this level (whole-run clients) from `level.startAt` on; a repeated level is a no-op. */
  hold?(level: SearchLevel): void;
}

/**
 * An automatic step-up: step 0 holds startClients from the start; each next level comes from whoever judges
 * the steps (the server, or the standalone agent itself) and is held until the next. A level's seconds count
 * as its step for stepDurationSec; seconds after that, while the next level is being decided, count as none.
 */
function searchSchedule(
  startClients: number,
  stepMs: number,
  runStartAt: number,
  cap: (planClients: number) => number,
): LoadSchedule {
  const levels: { step: number; clients: number; fromMs: number }[] = [{ step: 0, clients: startClients, fromMs: 0 }];
  const levelAt = (elapsedMs: number) => levels.filter((l) => l.fromMs <= elapsedMs).at(-1) ?? levels[0]!;
  return {
    rampsDown: true,
    clientsAt: (elapsedMs) => cap(levelAt(elapsedMs).clients),
    stepAt(elapsedMs) {
      const level = levelAt(elapsedMs);
      return elapsedMs < level.fromMs + stepMs ? level.step : undefined;
    },
    hold(level) {
      if (levels.some((l) => l.step === level.step)) return;
      levels.push({ step: level.step, clients: level.clients, fromMs: level.startAt - runStartAt });
      levels.sort((a, b) => a.fromMs - b.fromMs);
    },
  };
}

/** Where a shard sits in its run: what an automatic search's levels are timed from, and the clients of the shards before it. */
export interface SchedulePlacement {
  runStartAt?: number;
  clientsBefore?: number;
}

/**
 * The client count over time for one shard holding `shardClients` of the plan's `load.clients`. Shapes are
 * written for the whole plan and scaled by the shard's share, so N agents together follow the plan's curve.
 */
export function createLoadSchedule(
  load: LoadShape,
  scenario: Scenario,
  shardClients: number,
  placement: SchedulePlacement = {},
): LoadSchedule {
  const before = placement.clientsBefore ?? 0;
  const through = (planClients: number, upTo: number) =>
    Math.floor((planClients * Math.min(upTo, load.clients)) / load.clients + 1e-9);
  // This shard's part of a plan-wide count: the shards' cumulative shares rounded down, less those before it,
  // so the shards together hold exactly the plan's count (each rounding its own share down would lose up to one client per shard).
  const cap = (planClients: number) =>
    Math.min(shardClients, Math.max(0, through(planClients, before + shardClients) - through(planClients, before)));
  const runStartAt = placement.runStartAt ?? 0;
  const shape = load.shape;
  if (shape?.kind === "step-up") {
    const stepMs = shape.stepDurationSec * 1000;
    if (shape.mode === "auto") return searchSchedule(shape.startClients, stepMs, runStartAt, cap);
    if (shape.stepClients === undefined)
      throw new Error("a fixed step-up needs load.shape.stepClients (the plan schema requires it)");
  }
  // Stages, a fixed step-up and arrivals follow the plan-wide curve (@throng/protocol/planned-load), this shard its share.
  if (shapeClientsAt(load, scenario, 0) !== undefined) {
    return {
      rampsDown: shape?.kind === "stages",
      ...(shape?.kind === "step-up"
        ? { stepAt: (elapsedMs: number) => fixedStepAt(shape.stepDurationSec, elapsedMs) }
        : {}),
      clientsAt: (elapsedMs) => cap(shapeClientsAt(load, scenario, elapsedMs)!),
    };
  }
  const rampMs = load.rampUpSec * 1000;
  // Client i starts at rampMs · i / clients (of this shard), as the first engine did.
  return {
    rampsDown: false,
    clientsAt: (elapsedMs) =>
      rampMs <= 0
        ? shardClients
        : Math.min(shardClients, Math.floor((Math.max(0, elapsedMs) * shardClients) / rampMs) + 1),
  };
}

/** The schedule's whole-plan peak for this shard, to size descriptors before starting. */
export function peakClients(schedule: LoadSchedule, durationMs: number): number {
  let peak = 0;
  for (let at = 0; at <= durationMs; at += Math.max(1, durationMs / 1000))
    peak = Math.max(peak, schedule.clientsAt(at));
  return peak;
}
