import type { RunAssignment } from "@throng/protocol/agent";
import type { Target } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { ServerSample } from "@throng/protocol/server-watch";
import type { HealthSampler } from "../metrics/health";
import { createSnapshotBuilder } from "../metrics/snapshot-builder";
import { createRoomTally } from "../metrics/room-tally";
import { createEchoFlood } from "../scenarios/echo-flood";
import { createLoginStorm } from "../scenarios/login-storm";
import { createMovementSync } from "../scenarios/movement-sync";
import { createWireFormat } from "@throng/wire/wire-format";
import { createPingPong } from "../scenarios/ping-pong";
import type { ScenarioContext, ScenarioRunner } from "../scenarios/scenario";
import { startScriptShard, type ScriptOptions, type ScriptShard } from "../scripts/script-runner";
import { bindsOwnPorts, createTransport } from "../transports/create-transport";
import { KcpStats } from "../transports/kcp";
import { writeKcpCounters } from "../transports/kcp-transport";
import { TimerWheel } from "../transports/timer-wheel";
import { agentPortRange, LocalPorts, portSlice } from "../transports/local-ports";
import type { Transport } from "../transports/transport";
import { offsetClock, waitUntil, type Clock } from "./clock";
import { createLoadSchedule } from "./load-schedule";
import type { SearchFeed } from "./search-feed";
import { startRamp } from "./ramp";
import { clientTargets } from "./client-target";
import { createReconnects } from "./reconnects";
import { descriptorBudget, guardDescriptors } from "./descriptor-guard";
import { seededRandom } from "./seeded-random";
import { createShardCohorts, type CohortRoute } from "./cohorts";
import { datagramRoutes } from "../network/cohort-network";
import { runTag, withRunTag } from "@throng/protocol/run-tag";
import { createErrorSampler } from "../metrics/error-samples";
import { MissingSecretsError, withSecrets } from "@throng/protocol/plan-secrets";

const SNAPSHOT_INTERVAL_MS = 1_000;
/** A start this close to startAt counts as on time (timers fire a little late). */
const ON_TIME_TOLERANCE_MS = 50;

/** The first interval boundary after `at`: startAt + k seconds. */
function nextGridPoint(startAt: number, at: number): number {
  return startAt + (Math.floor((at - startAt) / SNAPSHOT_INTERVAL_MS) + 1) * SNAPSHOT_INTERVAL_MS;
}

export interface RunShardOptions {
  /** Called once per interval, in seq order, as soon as the snapshot is built; seq = seconds since startAt. */
  onSnapshot(snapshot: MetricSnapshot): void;
  /** A watch shard's per-second server samples (metrics/watch-shard.ts); load shards never call it. */
  onServerSample?(sample: ServerSample): void;
  /** Called when load starts (at startAt, or at once when startAt has passed). */
  onStart?(): void;
  /** Aborting stops the load early; the partial interval is still flushed as a final snapshot. */
  signal?: AbortSignal;
  /** Server time; defaults to the local clock, which is what a standalone run uses. */
  clock?: Clock;
  /** Defaults to the transport for the plan's target. */
  transport?: Transport;
  health?: HealthSampler;
  random?: () => number;
  /** Local addresses to spread connections over; the plan's target.sourceAddresses win. */
  sourceAddresses?: string[];
  /** This engine's share of the local port range when several engine processes run one shard (engines.ts). */
  portSlice?: { index: number; count: number };
  /** An automatic capacity search's levels after the first, as they are decided. */
  searchFeed?: SearchFeed;
  /** Whether this agent runs scripts (`--allow-scripts`) and the allow-list their sockets are held to. */
  scripts?: ScriptOptions;
  /** plan.network: how each cohort is applied on this agent (network/cohort-network.ts, decided before the load). */
  cohortRoutes?: CohortRoute[];
}

export interface ShardResult {
  /** Seq of the last snapshot emitted, -1 when the shard stopped before it started. */
  lastSeq: number;
  /** Why no load was generated, when none was. */
  skipped?: "aborted" | "expired";
}

/**
 * The local ports this engine binds from when it connects from given source addresses (UDP binds its own): its
 * slice of the agent's part of the kernel's ephemeral range, less the target's port.
 */
function enginePorts(target: Target, slice = { index: 0, count: 1 }): LocalPorts | undefined {
  if (target.protocol !== "websocket" && bindsOwnPorts(target)) return undefined;
  const targetPort =
    target.protocol === "websocket"
      ? Number(new URL(target.url).port || (target.url.startsWith("wss:") ? 443 : 80))
      : target.port;
  return new LocalPorts(
    portSlice(agentPortRange(), slice.index, slice.count),
    new Set([targetPort]),
    Math.random,
    (message) => console.error(`warning: ${message}`),
  );
}

/** The scenario the plan names, over the plan's transport. */
export function createScenario(assignment: RunAssignment, context: ScenarioContext): ScenarioRunner {
  const { scenario } = assignment.plan;
  switch (scenario.kind) {
    case "ping-pong":
      return createPingPong(scenario, context);
    case "echo-flood":
      return createEchoFlood(scenario, context);
    case "movement-sync":
      return createMovementSync(scenario, context);
    case "login-storm":
      return createLoginStorm(scenario, context);
    case "script": {
      const script = preparedScripts.get(assignment);
      if (!script) throw new Error("a script scenario runs on the worker runShard prepares for it");
      return script.runner;
    }
  }
}

/**
 * The plan with its secrets written in (PROTOCOL.md §14); a secret the assignment lacks fails the shard naming it
 * and where the plan uses it, before any load (its value is never in the message).
 */
function planWithSecrets(
  plan: RunAssignment["plan"],
  secrets: Readonly<Record<string, string>>,
): RunAssignment["plan"] {
  try {
    return withSecrets(plan, secrets);
  } catch (error) {
    if (!(error instanceof MissingSecretsError)) throw error;
    throw new Error(
      `${error.message}: the control plane sends a shard the secrets its plan names, and an organisation that no longer has one (or cannot open it) sends none; set it again under Settings → Secrets. No load was generated`,
    );
  }
}

/** Script workers loaded by runShard before the start, for createScenario (whose signature every scenario shares). */
const preparedScripts = new WeakMap<RunAssignment, ScriptShard>();

/**
 * Runs one shard of a run: waits for startAt, ramps `assignment.clients` clients over rampUpSec,
 * emits one MetricSnapshot per second until startAt + durationSec (server time) or the abort,
 * then closes every connection. The one engine entry point for `connect` and standalone runs.
 */
export async function runShard(given: RunAssignment, options: RunShardOptions): Promise<ShardResult> {
  // {{run}} and {{secrets.NAME}} are written into the plan's texts once, before any template is compiled.
  const assignment = {
    ...given,
    plan: planWithSecrets(withRunTag(given.plan, runTag(given.runId)), given.secrets ?? {}),
  };
  const clock = options.clock ?? offsetClock(0);
  const { signal } = options;
  const { load } = assignment.plan;
  // Every agent ends at the same server instant, even one that was handed its shard late.
  const endAt = assignment.startAt + load.durationSec * 1000;

  // A script's worker loads before the start (a script that cannot load, or may not run here, fails the shard).
  const script =
    assignment.plan.scenario.kind === "script" ? await startScriptShard(assignment, options.scripts) : undefined;
  if (script) preparedScripts.set(assignment, script);
  const skip = async (skipped: "aborted" | "expired"): Promise<ShardResult> => {
    await script?.terminate();
    return { lastSeq: -1, skipped };
  };
  if (await waitUntil(clock, assignment.startAt, signal)) return skip("aborted");
  const now = clock.now();
  if (now >= endAt) return skip("expired");
  // Intervals sit on the startAt + k seconds grid, so every agent's seq N covers the same second.
  const begin = now - assignment.startAt < ON_TIME_TOLERANCE_MS ? assignment.startAt : Math.floor(now);

  // One timer wheel for the engine's clients and its KCP connections; KCP's counters go into every snapshot.
  const wheel = new TimerWheel();
  const kcpStats = assignment.plan.target.protocol === "kcp" ? new KcpStats() : undefined;
  // Network cohorts: their own figures beside the run's, and how their clients connect (engine/cohorts.ts).
  const { network } = assignment.plan;
  const cohortRoutes = network ? (options.cohortRoutes ?? datagramRoutes(assignment.plan)) : undefined;
  const builder = createSnapshotBuilder({
    runId: assignment.runId,
    // Samples carry server time, as the snapshots do; the secrets written into the plan are taken out of them.
    errorSamples: createErrorSampler({ now: () => clock.now(), secrets: given.secrets ?? {} }),
    ...(options.health ? { health: options.health } : {}),
    ...(kcpStats
      ? {
          transportCounters(counters) {
            const all = [kcpStats, ...(cohorts?.kcpStats ?? [])];
            writeKcpCounters(all, counters);
            for (const stats of all) stats.reset();
          },
        }
      : {}),
  });
  const cohorts =
    network && cohortRoutes
      ? createShardCohorts({
          cohorts: network,
          routes: cohortRoutes,
          runClients: load.clients,
          runId: assignment.runId,
          runMetrics: builder.metrics,
          wheel,
          kcp: kcpStats !== undefined,
        })
      : undefined;
  script?.foldInto(builder);
  // movement-sync: every room of the shard for the whole run, its worst in each snapshot (PROTOCOL.md §5.3).
  const rooms = assignment.plan.scenario.kind === "movement-sync" ? createRoomTally() : undefined;
  const sourceAddresses = assignment.plan.target.sourceAddresses ?? options.sourceAddresses;
  // Reconnects and reconnect storms (reconnects.ts); a storm's choice of clients is seeded by the run and shard.
  const storm = load.shape?.kind === "reconnect-storm" ? load.shape : undefined;
  const policy = "reconnect" in assignment.plan.scenario ? assignment.plan.scenario.reconnect : undefined;
  const reconnects =
    (policy?.policy ?? "never") !== "never" || storm
      ? createReconnects(
          policy,
          (index) => cohorts?.network.metricsOf(index) ?? builder.metrics,
          options.random ?? seededRandom(`${assignment.runId}:${assignment.shardIndex}`),
        )
      : undefined;
  const perClientTarget = options.transport ? undefined : clientTargets(assignment.plan.target);
  // Connections stop at the open-file limit less the engine's reserve, so its own files never run out (open-files.ts).
  const budget = descriptorBudget();
  const transportFor: typeof perClientTarget =
    perClientTarget && ((fields, vars) => guardDescriptors(perClientTarget(fields, vars), budget));
  const created = createScenario(assignment, {
    ...(transportFor ? { transportFor } : {}),
    ...(reconnects ? { clientEvents: reconnects.events } : {}),
    transport: guardDescriptors(
      options.transport ??
        createTransport(assignment.plan.target, { kcp: { wheel, ...(kcpStats ? { stats: kcpStats } : {}) } }),
      budget,
    ),
    wheel,
    metrics: builder.metrics,
    clients: assignment.clients,
    datagram: assignment.plan.target.protocol === "udp",
    // Parsed once per shard (a .proto is never parsed per message); a bad one fails the shard naming its field.
    wire: createWireFormat(assignment.plan),
    ...(sourceAddresses ? { sourceAddresses, localPorts: enginePorts(assignment.plan.target, options.portSlice) } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(cohorts ? { network: cohorts.network } : {}),
    ...(rooms ? { rooms } : {}),
  });
  const scenario = reconnects ? reconnects.wrap(created) : created;
  const schedule = createLoadSchedule(load, assignment.plan.scenario, assignment.clients, {
    runStartAt: assignment.startAt,
    ...(assignment.clientsBefore !== undefined ? { clientsBefore: assignment.clientsBefore } : {}),
  });
  if (schedule.hold) {
    // A reconnecting agent's assignment carries the level the search has reached.
    if (assignment.searchStep) schedule.hold(assignment.searchStep);
    options.searchFeed?.onLevel((level) => schedule.hold!(level));
  }
  options.onStart?.();
  // The ramp counts this shard's clients from 0; the scenario numbers them run-wide ({{client}}, client-numbers.ts).
  const firstClient = assignment.clientsBefore ?? 0;
  const ramp = startRamp({
    clients: assignment.clients,
    startAt: assignment.startAt,
    clock,
    schedule,
    startClient(index) {
      cohorts?.started(firstClient + index);
      scenario.startClient(firstClient + index);
    },
    stopClient(index) {
      cohorts?.stopped(firstClient + index);
      scenario.stopClient?.(firstClient + index);
    },
  });
  const stormTimer =
    storm && reconnects ? setInterval(() => reconnects.storm(storm.dropPercent), storm.everySec * 1000) : undefined;

  let lastSeq = -1;
  let closing: Promise<void> | undefined;
  try {
    let intervalStart = begin;
    // Bounded: every pass ends an interval, and intervals only move forward to endAt or the abort.
    for (;;) {
      const boundary = Math.min(nextGridPoint(assignment.startAt, intervalStart), endAt);
      const aborted = await waitUntil(clock, boundary, signal);
      const intervalEnd = aborted ? Math.min(Math.round(clock.now()), boundary) : boundary;
      const last = aborted || intervalEnd >= endAt;
      if (last) {
        // The run's end: clients stop before its last second is cut, so what they still have in flight goes into
        // that snapshot as inFlightAtEnd (not into errors or losses), and their send schedules stop with it.
        ramp.stop();
        clearInterval(stormTimer);
        closing = scenario.close();
      }
      // seq is the second's index since startAt: 0, 1, 2… on time, and a process restarted mid-run
      // (which starts late) cannot reuse a seq its predecessor already delivered.
      const seq = Math.floor((intervalStart - assignment.startAt) / SNAPSHOT_INTERVAL_MS);
      // A script's worker measured this second in its own thread: its part goes in before the snapshot is cut.
      if (script) await script.flush(last);
      const step = schedule.stepAt?.(intervalStart - assignment.startAt);
      const interval = {
        seq,
        intervalStart,
        intervalMs: intervalEnd - intervalStart,
        clients: ramp.started(),
        ...(step !== undefined ? { step } : {}),
      };
      // The cohorts' figures are cut first: the run's KCP counters sum theirs and then start every tally again.
      const cohortFigures = cohorts?.take(interval);
      const snapshot = builder.take(interval);
      if (cohortFigures) snapshot.cohorts = cohortFigures;
      if (rooms) snapshot.rooms = rooms.report();
      lastSeq = seq;
      options.onSnapshot(snapshot);
      intervalStart = intervalEnd;
      if (last) break;
    }
  } finally {
    ramp.stop();
    clearInterval(stormTimer);
    builder.stop();
    cohorts?.stop();
    await (closing ?? scenario.close());
  }
  return { lastSeq };
}
