import type { LoadShape, Scenario } from "@throng/protocol/plan";

/** How many of this shard's clients should be running `elapsedMs` after startAt, and (step-up) which step it is. */
export interface LoadSchedule {
  clientsAt(elapsedMs: number): number;
  stepAt?(elapsedMs: number): number;
  /** True when clients may be stopped before the end (a stage that ramps down). */
  rampsDown: boolean;
}

function linear(fromClients: number, toClients: number, fraction: number): number {
  return fromClients + (toClients - fromClients) * Math.min(1, Math.max(0, fraction));
}

/**
 * The client count over time for one shard holding `shardClients` of the plan's `load.clients`. Shapes are
 * written for the whole plan and scaled by the shard's share, so N agents together follow the plan's curve.
 */
export function createLoadSchedule(load: LoadShape, scenario: Scenario, shardClients: number): LoadSchedule {
  const share = Math.min(1, shardClients / load.clients);
  const cap = (planClients: number) => Math.min(shardClients, Math.floor(planClients * share + 1e-9));
  const shape = load.shape;
  if (shape?.kind === "stages") {
    return {
      rampsDown: true,
      clientsAt(elapsedMs) {
        let from = 0;
        let stageStart = 0;
        for (const stage of shape.stages) {
          const stageMs = stage.durationSec * 1000;
          if (elapsedMs < stageStart + stageMs) return cap(linear(from, stage.clients, (elapsedMs - stageStart) / stageMs));
          from = stage.clients;
          stageStart += stageMs;
        }
        return cap(from);
      },
    };
  }
  if (shape?.kind === "step-up") {
    const stepMs = shape.stepDurationSec * 1000;
    const stepAt = (elapsedMs: number) => Math.max(0, Math.floor(elapsedMs / stepMs));
    return { rampsDown: false, stepAt, clientsAt: (elapsedMs) => cap(Math.min(load.clients, shape.startClients + stepAt(elapsedMs) * shape.stepClients)) };
  }
  const arrivalsPerSec = shape?.kind === "arrival-rate" ? shape.clientsPerSec : scenario.kind === "login-storm" ? scenario.connectsPerSec : undefined;
  if (arrivalsPerSec !== undefined) {
    // Open model: arrivals do not wait for the server; the first arrives at once.
    return { rampsDown: false, clientsAt: (elapsedMs) => cap(Math.min(load.clients, Math.floor((elapsedMs / 1000) * arrivalsPerSec) + 1)) };
  }
  if (load.joinIntervalMs !== undefined) {
    const every = load.joinIntervalMs;
    return { rampsDown: false, clientsAt: (elapsedMs) => cap(Math.min(load.clients, Math.floor(elapsedMs / every) + 1)) };
  }
  const rampMs = load.rampUpSec * 1000;
  // Client i starts at rampMs · i / clients (of this shard), as the first engine did.
  return {
    rampsDown: false,
    clientsAt: (elapsedMs) => (rampMs <= 0 ? shardClients : Math.min(shardClients, Math.floor((Math.max(0, elapsedMs) * shardClients) / rampMs) + 1)),
  };
}

/** The schedule's whole-plan peak for this shard, to size descriptors before starting. */
export function peakClients(schedule: LoadSchedule, durationMs: number): number {
  let peak = 0;
  for (let at = 0; at <= durationMs; at += Math.max(1, durationMs / 1000)) peak = Math.max(peak, schedule.clientsAt(at));
  return peak;
}
