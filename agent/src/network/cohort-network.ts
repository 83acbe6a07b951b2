import type { NetworkCohort } from "@throng/protocol/network";
import { placeCohorts } from "@throng/protocol/network";
import type { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { CohortRoute } from "../engine/cohorts";
import { seededRandom } from "../engine/seeded-random";
import { ipv4, netqAddon, openKernelQueue, type KernelQueue, type QueuedRange } from "./kernel-queue";
import { linkConditions, type LinkTally } from "./link";

/**
 * How the plan's network cohorts are applied on this agent, decided once per agent process before any load:
 * datagram targets (UDP, KCP) on each client's datagram path; stream targets (TCP, WebSocket) below TCP through
 * the kernel path when the agent may use it, else (delay and bandwidth only) above the stream, said plainly; a
 * stream cohort with loss, duplicates or reordering and no kernel path is refused here, before the load.
 */

/** The plan asks for what this agent cannot do: refused before any load (a usage error standalone, a failed shard under the control plane). */
export class NetworkRefusal extends Error {
  readonly code = "ERR_NETWORK_REFUSED";
}

/** Clients per loopback source address (one address's ephemeral ports to one target, with headroom). */
const CLIENTS_PER_ADDRESS = 25_000;

export function isDatagramTarget(plan: PlanSpec): boolean {
  return plan.target.protocol === "udp" || plan.target.protocol === "kcp";
}

/** Datagram targets: every cohort on the datagram path. A stream target's routes need prepareCohortNetwork. */
export function datagramRoutes(plan: PlanSpec): CohortRoute[] {
  if (!isDatagramTarget(plan))
    throw new Error(
      "a stream target's network cohorts are prepared by the agent's process before the load (prepareCohortNetwork)",
    );
  return (plan.network ?? []).map(() => ({ applied: "datagram" }));
}

export interface PreparedNetwork {
  routes: CohortRoute[];
  /** What the agent should tell its user (a cohort applied above TCP, and why). */
  notes: string[];
  /** A second's snapshot with the kernel path's tallies in its cohorts' counters (once per second, after the engines' merge). */
  addKernelFigures(snapshot: MetricSnapshot): MetricSnapshot;
  /** Removes the rules and lets held packets go (also run at the process's exit). */
  close(): void;
}

function targetHost(plan: PlanSpec): string {
  return plan.target.protocol === "websocket" ? new URL(plan.target.url).hostname : plan.target.host;
}

/** What a stream cohort asks that only the kernel path can do. */
function belowTcpOnly(cohort: NetworkCohort): string[] {
  return (["lossPercent", "duplicatePercent", "reorderPercent"] as const).filter((field) => (cohort[field] ?? 0) > 0);
}

/** The address ranges the kernel path queues for each cohort: its own addresses, or 127.S.(k+1).0/24 on loopback. */
function queuedRanges(
  cohorts: readonly NetworkCohort[],
  slot: number,
): { ranges: QueuedRange[]; addresses: string[][] } {
  const ranges: QueuedRange[] = [];
  const addresses = cohorts.map((cohort, k) => {
    const direction = cohort.direction ?? "both";
    const flags = { cohort: k, up: direction !== "down", down: direction !== "up" };
    if (cohort.sourceAddresses) {
      for (const address of cohort.sourceAddresses) ranges.push({ net: ipv4(address)!, mask: 0xffffffff, ...flags });
      return cohort.sourceAddresses;
    }
    const net = ((127 << 24) | ((192 + slot) << 16) | ((k + 1) << 8)) >>> 0;
    ranges.push({ net, mask: 0xffffff00, ...flags });
    return [];
  });
  return { ranges, addresses };
}

function kernelBlocker(plan: PlanSpec): string | undefined {
  const host = targetHost(plan);
  const loopback = /^127\.\d+\.\d+\.\d+$/.test(host);
  const unaddressed = (plan.network ?? []).findIndex((cohort) => !cohort.sourceAddresses);
  if (!loopback && unaddressed >= 0) {
    return `the target ${host} is not an IPv4 loopback address, so the agent cannot give network[${unaddressed}] addresses of its own: list this rig's IPv4 addresses for it in network[${unaddressed}].sourceAddresses`;
  }
  const bad = (plan.network ?? []).flatMap((cohort, i) =>
    (cohort.sourceAddresses ?? [])
      .filter((a) => ipv4(a) === undefined)
      .map((a) => `network[${i}].sourceAddresses: ${a}`),
  );
  if (bad.length)
    return `the kernel path selects a cohort's packets by IPv4 source address: ${bad.join(", ")} is not one`;
  return undefined;
}

/** Why the kernel path could not start, in words a user can act on. */
function kernelFailure(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === "EPERM" || /Operation not permitted/.test(message)) {
    return `the kernel refused (${message}): the agent needs CAP_NET_ADMIN (run it as root, or setcap cap_net_admin+ep on node)`;
  }
  return message;
}

function refusal(
  plan: PlanSpec,
  cohort: NetworkCohort,
  index: number,
  fields: string[],
  reason: string,
): NetworkRefusal {
  return new NetworkRefusal(
    `network[${index}] "${cohort.name}" asks for ${fields.join(", ")} on a ${plan.target.protocol} target, which only the kernel path can apply (below TCP, where TCP's own ` +
      `retransmissions see it), and this agent cannot use it: ${reason}. Run the agent on Linux as root (or with CAP_NET_ADMIN) with libnetfilter_queue ` +
      `(apt-get install libnetfilter-queue1 libnftnl11), or take ${fields.join(" and ")} out of this cohort (its delay and bandwidth are then applied above TCP, and its figures say so).`,
  );
}

function withKernelTallies(
  snapshot: MetricSnapshot,
  names: readonly string[],
  tallies: readonly LinkTally[],
  tcpRetransmits: readonly number[],
): MetricSnapshot {
  if (!snapshot.cohorts) return snapshot;
  const cohorts = { ...snapshot.cohorts };
  names.forEach((name, k) => {
    const entry = cohorts[name];
    const tally = tallies[k]!;
    if (entry?.applied !== "kernel") return;
    cohorts[name] = {
      ...entry,
      counters: {
        ...entry.counters,
        networkPackets: tally.packets,
        networkDropped: tally.dropped,
        networkDuplicated: tally.duplicated,
        networkReordered: tally.reordered,
        networkOverflowed: tally.overflowed,
        tcpRetransmits: tcpRetransmits[k] ?? 0,
      },
    };
  });
  return { ...snapshot, cohorts };
}

/** Opens the kernel path for every cohort of a stream plan; the routes give each cohort's source addresses. */
function openKernelPath(
  plan: PlanSpec,
  cohorts: readonly NetworkCohort[],
): { queue: KernelQueue; routes: CohortRoute[] } | string {
  const blocked = kernelBlocker(plan);
  if (blocked) return blocked;
  const addon = netqAddon();
  if (typeof addon === "string") return addon;
  const counts = placeCohorts(cohorts, plan.load.clients).counts;
  let addresses: string[][] = [];
  try {
    const queue = openKernelQueue(
      addon,
      cohorts.map((cohort) => ({
        ...linkConditions(cohort),
        seed: Math.floor(seededRandom(`${cohort.seed ?? 1}:${cohort.name}`)() * 2 ** 32),
      })),
      (slot) => {
        const queued = queuedRanges(cohorts, slot);
        addresses = queued.addresses;
        return queued.ranges;
      },
    );
    const routes = cohorts.map((_cohort, k): CohortRoute => {
      const own = addresses[k]!;
      if (own.length) return { applied: "kernel", sourceAddresses: own };
      const needed = Math.min(254, Math.max(1, Math.ceil(counts[k]! / CLIENTS_PER_ADDRESS)));
      return {
        applied: "kernel",
        sourceAddresses: Array.from({ length: needed }, (_, i) => `127.${192 + queue.slot}.${k + 1}.${i + 1}`),
      };
    });
    return { queue, routes };
  } catch (error) {
    return kernelFailure(error);
  }
}

/** Decides each cohort's route and opens the kernel path where it is needed; throws NetworkRefusal before any load. Undefined without cohorts. */
export function prepareCohortNetwork(plan: PlanSpec): PreparedNetwork | undefined {
  const cohorts = plan.network;
  if (!cohorts?.length) return undefined;
  const passThrough = (snapshot: MetricSnapshot) => snapshot;
  if (isDatagramTarget(plan))
    return { routes: datagramRoutes(plan), notes: [], addKernelFigures: passThrough, close() {} };
  const kernel = openKernelPath(plan, cohorts);
  if (typeof kernel !== "string") {
    const close = () => kernel.queue.close();
    // Killed by a signal the process still exits through here; killed outright, the kernel drops an owner table itself.
    process.once("exit", close);
    const names = cohorts.map((c) => c.name);
    return {
      routes: kernel.routes,
      notes: [
        `network cohorts ${names.join(", ")}: their packets pass the agent's netfilter queue (table ${kernel.queue.table}), below TCP`,
      ],
      addKernelFigures: (snapshot) =>
        withKernelTallies(snapshot, names, kernel.queue.takeTallies(), kernel.queue.takeTcpRetransmits()),
      close() {
        process.removeListener("exit", close);
        close();
      },
    };
  }
  cohorts.forEach((cohort, i) => {
    const fields = belowTcpOnly(cohort);
    if (fields.length) throw refusal(plan, cohort, i, fields, kernel);
  });
  return {
    routes: cohorts.map(() => ({ applied: "above-stream" })),
    notes: cohorts.map(
      (cohort) =>
        `network cohort ${cohort.name}: its delay and bandwidth are applied ABOVE TCP (whole messages held by the agent), so TCP sees the rig's round trip and recovers faster than on the network asked for; its figures say "above-stream". Why not below TCP: ${kernel}`,
    ),
    addKernelFigures: passThrough,
    close() {},
  };
}
