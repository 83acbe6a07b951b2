import { placeCohorts, type NetworkCohort } from "@throng/protocol/network";
import type { AgentHealth, CohortSnapshot, NetworkPath, SnapshotCounters } from "@throng/protocol/snapshot";
import type { HealthSampler } from "../metrics/health";
import {
  createSnapshotBuilder,
  type ScenarioMetrics,
  type SnapshotBuilder,
  type SnapshotInterval,
} from "../metrics/snapshot-builder";
import { aboveStream } from "../network/above-stream";
import { datagramStage } from "../network/datagram-stage";
import { emptyTally, Link, linkConditions, type LinkTally } from "../network/link";
import type { ClientNetwork } from "../scenarios/scenario";
import { KcpStats } from "../transports/kcp";
import { writeKcpCounters } from "../transports/kcp-transport";
import type { TimerWheel } from "../transports/timer-wheel";
import { seededRandom } from "./seeded-random";

/**
 * A shard's network cohorts (plan.network): which of its clients are in which cohort (by run-wide number, the same
 * on every agent and engine), how each cohort's connections open on this agent (its route: network/cohort-network.ts
 * decided it before the load), and each cohort's own figures, cut into the snapshot once a second beside the run's.
 */

/** How one cohort's conditions are applied on this agent, decided once per agent before any load. */
export interface CohortRoute {
  applied: NetworkPath;
  /** The kernel path: the addresses the cohort's clients connect from (its packets are found by them). */
  sourceAddresses?: string[];
}

/** Cohort figures carry no health of their own: the agent's is the snapshot's. */
const NO_HEALTH: HealthSampler = {
  sample: (): AgentHealth => ({ cpuPercent: 0, eventLoopP99Ms: 0, rssBytes: 0 }),
  stop() {},
};

/** Every call made on both: the run's figures and a cohort's. */
function tee(run: ScenarioMetrics, cohort: ScenarioMetrics): ScenarioMetrics {
  const both: Record<string, (...args: never[]) => void> = {};
  for (const [name, method] of Object.entries(run) as [string, (...args: unknown[]) => void][]) {
    const other = (cohort as unknown as Record<string, (...args: unknown[]) => void>)[name]!;
    both[name] = (...args: unknown[]) => {
      method(...args);
      other(...args);
    };
  }
  return both as unknown as ScenarioMetrics;
}

function tallyCounters(tally: LinkTally): Partial<SnapshotCounters> {
  return {
    networkPackets: tally.packets,
    networkDropped: tally.dropped,
    networkDuplicated: tally.duplicated,
    networkReordered: tally.reordered,
    networkOverflowed: tally.overflowed,
  };
}

interface Cohort {
  readonly spec: NetworkCohort;
  readonly route: CohortRoute;
  readonly builder: SnapshotBuilder;
  readonly metrics: ScenarioMetrics;
  readonly tally: LinkTally;
  readonly kcp: KcpStats | undefined;
  running: number;
}

export interface ShardCohorts {
  /** For the scenario's context. */
  readonly network: ClientNetwork;
  /** The ramp started or stopped client `index`: its cohort's clients gauge follows. */
  started(index: number): void;
  stopped(index: number): void;
  /** Each cohort's figures for the interval just ended, by name; call before the run's snapshot is cut (KCP's tallies are shared). */
  take(interval: SnapshotInterval): Record<string, CohortSnapshot>;
  /** KCP: the tallies of every cohort, for the run's own counters (summed with the rig's clients'). */
  readonly kcpStats: readonly KcpStats[];
  stop(): void;
}

export interface ShardCohortsOptions {
  cohorts: readonly NetworkCohort[];
  routes: readonly CohortRoute[];
  /** The run's clients (load.clients): placement is over all of them. */
  runClients: number;
  runId: string;
  runMetrics: ScenarioMetrics;
  wheel: TimerWheel;
  kcp: boolean;
}

export function createShardCohorts(options: ShardCohortsOptions): ShardCohorts {
  const placement = placeCohorts(options.cohorts, options.runClients);
  const cohorts: Cohort[] = options.cohorts.map((spec, i) => {
    const kcp = options.kcp ? new KcpStats() : undefined;
    const builder = createSnapshotBuilder({
      runId: options.runId,
      health: NO_HEALTH,
      ...(kcp ? { transportCounters: (counters) => writeKcpCounters([kcp], counters) } : {}),
    });
    return {
      spec,
      route: options.routes[i]!,
      builder,
      metrics: tee(options.runMetrics, builder.metrics),
      tally: emptyTally(),
      kcp,
      running: 0,
    };
  });
  /** A client's links, seeded by its cohort and number: the same draws for the same client whichever engine runs it. */
  const linksOf = (cohort: Cohort, index: number) => {
    const conditions = linkConditions(cohort.spec);
    const seed = `${cohort.spec.seed ?? 1}:${cohort.spec.name}:${index}`;
    return {
      ...(conditions.up ? { up: new Link(conditions.up, seededRandom(`${seed}:up`), cohort.tally) } : {}),
      ...(conditions.down ? { down: new Link(conditions.down, seededRandom(`${seed}:down`), cohort.tally) } : {}),
    };
  };
  const cohortOf = (index: number) => cohorts[placement.cohortOf(index)];

  const network: ClientNetwork = {
    metricsOf: (index) => cohortOf(index)?.metrics ?? options.runMetrics,
    cohortMetricsOf: (index) => cohortOf(index)?.builder.metrics,
    open(index, transport, openOptions) {
      const cohort = cohortOf(index);
      if (!cohort) return { transport, options: openOptions };
      const { route } = cohort;
      const withKcp = cohort.kcp ? { ...openOptions, kcpStats: cohort.kcp } : openOptions;
      if (route.applied === "datagram")
        return {
          transport,
          options: { ...withKcp, datagramStage: datagramStage(linksOf(cohort, index), options.wheel) },
        };
      if (route.applied === "above-stream")
        return { transport: aboveStream(transport, () => linksOf(cohort, index), options.wheel), options: openOptions };
      // The kernel path: the cohort's own source addresses are what its rules match.
      const addresses = route.sourceAddresses ?? [];
      const localAddress = addresses[index % addresses.length]!;
      return { transport, options: { ...openOptions, localAddress } };
    },
  };

  return {
    network,
    kcpStats: cohorts.flatMap((c) => (c.kcp ? [c.kcp] : [])),
    started(index) {
      const cohort = cohortOf(index);
      if (cohort) cohort.running += 1;
    },
    stopped(index) {
      const cohort = cohortOf(index);
      if (cohort) cohort.running = Math.max(0, cohort.running - 1);
    },
    take(interval) {
      const out: Record<string, CohortSnapshot> = {};
      for (const cohort of cohorts) {
        const { counters, histograms } = cohort.builder.take({ ...interval, clients: cohort.running });
        // The kernel path's tallies are the agent process's, added to the merged snapshot there.
        const network = cohort.route.applied === "kernel" ? {} : tallyCounters(cohort.tally);
        Object.assign(cohort.tally, emptyTally());
        out[cohort.spec.name] = {
          clients: cohort.running,
          counters: { ...counters, ...network },
          histograms,
          applied: cohort.route.applied,
        };
      }
      return out;
    },
    stop() {
      for (const cohort of cohorts) cohort.builder.stop();
    },
  };
}
