// What a plan asks of its load at each moment: the clients it has running over all agents, and the sends a connected
// client's schedule calls for. The agent's engine follows this curve (agent/src/engine/load-schedule.ts, each shard
// its share of it) and counts its schedule from the same rate, and the verdict (load-check.ts) compares the seconds
// the agents measured with it, so a second an agent did not measure, or measured while it stood still, is held
// against the plan rather than against what that agent happened to report.
import type { LoadShape, Scenario } from "./plan";

function linear(fromClients: number, toClients: number, fraction: number): number {
  return fromClients + (toClients - fromClients) * Math.min(1, Math.max(0, fraction));
}

/**
 * The plan-wide client curve `elapsedMs` after the start for the shapes every shard takes its share of (stages, a
 * fixed step-up, arrivals), unrounded: each shard rounds its own cumulative share. Undefined for the simple ramp
 * (each shard ramps its own clients) and for an automatic search (its steps set each level).
 */
export function shapeClientsAt(load: LoadShape, scenario: Scenario, elapsedMs: number): number | undefined {
  const shape = load.shape;
  if (shape?.kind === "stages") {
    let from = 0;
    let stageStart = 0;
    for (const stage of shape.stages) {
      const stageMs = stage.durationSec * 1000;
      if (elapsedMs < stageStart + stageMs) return linear(from, stage.clients, (elapsedMs - stageStart) / stageMs);
      from = stage.clients;
      stageStart += stageMs;
    }
    return from;
  }
  if (shape?.kind === "step-up") {
    if (shape.mode === "auto" || shape.stepClients === undefined) return undefined;
    return Math.min(
      load.clients,
      shape.startClients + fixedStepAt(shape.stepDurationSec, elapsedMs) * shape.stepClients,
    );
  }
  const arrivalsPerSec =
    shape?.kind === "arrival-rate"
      ? shape.clientsPerSec
      : scenario.kind === "login-storm"
        ? scenario.connectsPerSec
        : undefined;
  // Open model: arrivals do not wait for the server; the first arrives at once.
  if (arrivalsPerSec !== undefined) return Math.min(load.clients, Math.floor((elapsedMs / 1000) * arrivalsPerSec) + 1);
  if (load.joinIntervalMs !== undefined) return Math.min(load.clients, Math.floor(elapsedMs / load.joinIntervalMs) + 1);
  return undefined;
}

/** A fixed step-up's step at `elapsedMs` after the start. */
export function fixedStepAt(stepDurationSec: number, elapsedMs: number): number {
  return Math.max(0, Math.floor(elapsedMs / (stepDurationSec * 1000)));
}

/**
 * The clients the plan has running over all agents `elapsedMs` after the start; undefined for an automatic capacity
 * search, whose levels its steps decide (the verdict reads them from the steps).
 */
export function plannedClientsAt(load: LoadShape, scenario: Scenario, elapsedMs: number): number | undefined {
  if (load.shape?.kind === "step-up" && load.shape.mode === "auto") return undefined;
  const shaped = shapeClientsAt(load, scenario, elapsedMs);
  if (shaped !== undefined) return Math.floor(shaped + 1e-9);
  const rampMs = load.rampUpSec * 1000;
  return rampMs <= 0
    ? load.clients
    : Math.min(load.clients, Math.floor((Math.max(0, elapsedMs) * load.clients) / rampMs) + 1);
}

/**
 * Sends per second one connected client's schedule calls for (its messages and its heartbeats): a fixed-interval
 * ping-pong, a movement-sync at `updateHz`. Undefined for the scenarios without a send schedule: think time and
 * echo-flood send when answered, login-storm and a script send when they choose.
 */
export function scheduledSendsPerClient(scenario: Scenario): number | undefined {
  return sendRates(scenario)?.reduce((sum, rate) => sum + rate, 0);
}

/**
 * The fewest sends one client's schedule makes in any one second. A stream that does not divide the second evenly
 * sends its rate rounded down in some seconds and rounded up in others, by where its sends fall against the
 * second's edges: a client every 400 ms sends 2, then 3. Clients started together keep the same phase, so a whole
 * second's sends swing with them (10 such clients: 20, then 30), and none of those seconds is short of the schedule.
 */
export function fewestSendsPerClientInASecond(scenario: Scenario): number | undefined {
  return sendRates(scenario)?.reduce((sum, rate) => sum + Math.floor(rate + 1e-9), 0);
}

/** Each periodic send stream of a client (messages, heartbeats), in sends per second. */
function sendRates(scenario: Scenario): number[] | undefined {
  const heartbeat = "heartbeat" in scenario && scenario.heartbeat ? [1000 / scenario.heartbeat.intervalMs] : [];
  if (scenario.kind === "ping-pong") return scenario.thinkTime ? undefined : [1000 / scenario.intervalMs, ...heartbeat];
  if (scenario.kind === "movement-sync") return scenario.updateHz ? [scenario.updateHz, ...heartbeat] : undefined;
  return undefined;
}
