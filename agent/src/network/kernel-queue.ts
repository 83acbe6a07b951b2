import { requireNativeAddon } from "../native-addon";
import type { LinkConditions, LinkTally } from "./link";
import { emptyTally } from "./link";

/**
 * The kernel path of a stream cohort (TCP, WebSocket): nf_tables rules send the packets of the cohort's source
 * addresses to a netfilter queue, and the agent's addon (agent/native/throng_netq.c, dist/throng-netq.node) holds,
 * drops, duplicates or reorders them on a thread of its own, below TCP, where TCP's timers see it. Linux only, as
 * root or with CAP_NET_ADMIN, with libnetfilter_queue; the table is the process's own (`throng_<pid>`), owned by
 * its netlink socket where the kernel allows (so the kernel removes it when the process dies, even killed), and
 * any `throng_<pid>` table whose process is gone is removed at the next start.
 */

interface NetqAddon {
  start(queue: number, mark: number, links: Float64Array, matches: Uint32Array): void;
  stop(): void;
  stats(): Float64Array;
  createTable(
    name: string,
    queue: number,
    mark: number,
    matches: Uint32Array,
    owned?: boolean,
  ): { owner: boolean; compat: boolean };
  deleteTable(name: string): boolean;
  listTables(): string[];
  tcpRetransmits(ranges: Uint32Array): Float64Array;
}

const ADDON_FILE = "throng-netq.node";
/** Queues 29696 … 29759: one per agent process using the kernel path on this host, the first free one. */
const QUEUE_BASE = 0x7400;
export const KERNEL_SLOTS = 64;
/** Packets the addon sends itself (duplicates) carry this mark, and the rules let marked packets pass. */
const MARK = 0x7468;
const TABLE_PREFIX = "throng_";
/** Per cohort, up then down: packets, dropped, duplicated, reordered, overflowed. */
const STATS = 5;

let loaded: NetqAddon | string | undefined;

/** The addon, or why it could not be loaded (and what to do). */
export function netqAddon(): NetqAddon | string {
  loaded ??= loadNetqAddon();
  return loaded;
}

function loadNetqAddon(): NetqAddon | string {
  if (process.platform !== "linux") return `the kernel path is Linux-only (this is ${process.platform})`;
  const found = requireNativeAddon<NetqAddon>(ADDON_FILE);
  if ("addon" in found) return found.addon;
  return `${ADDON_FILE} is not loaded (${found.reasons}): install libnetfilter-queue1 and libnftnl11 (to build it: apt-get install libnetfilter-queue-dev libnftnl-dev libmnl-dev, then node agent/build.mjs)`;
}

/** The cohort's address range whose packets are queued, and in which directions. */
export interface QueuedRange {
  /** IPv4 network and mask, host order. */
  net: number;
  mask: number;
  cohort: number;
  up: boolean;
  down: boolean;
}

export interface KernelCohort {
  up?: LinkConditions;
  down?: LinkConditions;
  /** Seeds the thread's draws for this cohort (up, then up + 1 for down). */
  seed: number;
}

export interface KernelQueue {
  /** 127.S.x.y's S for this agent process: its cohorts' loopback addresses are its own. */
  readonly slot: number;
  readonly table: string;
  /** What the links did since the last call, per cohort (both directions summed). */
  takeTallies(): LinkTally[];
  /**
   * TCP's own retransmissions since the last call, per cohort: the growth of TCP_INFO's total_retrans on the sockets
   * the cohort's clients connect from (a socket that closed between two calls takes its last increments with it).
   */
  takeTcpRetransmits(): number[];
  /** Releases what is held, ends the thread and removes the table. */
  close(): void;
}

export function ipv4(address: string): number | undefined {
  const parts = address.split(".").map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Tables of agent processes that are gone (killed before they could remove theirs): removed; returns their names. */
export function removeLeftoverTables(addon: NetqAddon): string[] {
  const removed: string[] = [];
  for (const name of addon.listTables()) {
    const pid = name.startsWith(TABLE_PREFIX) ? Number(name.slice(TABLE_PREFIX.length)) : NaN;
    if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    if (addon.deleteTable(name)) removed.push(name);
  }
  return removed;
}

function linkNumbers(conditions: LinkConditions | undefined, seed: number): number[] {
  if (!conditions) return [0, 0, 0, 0, 0, 0, 0, seed];
  const { delayMs, jitterMs, bytesPerMs, loss, duplicate, reorder } = conditions;
  return [1, delayMs * 1e6, jitterMs * 1e6, bytesPerMs / 1e6, loss, duplicate, reorder, seed];
}

/**
 * Claims a queue (the first free slot), starts the addon's thread on it and creates the table whose rules feed it.
 * `ranges(slot)` gives the address ranges once the slot (and so the loopback addresses) is known. Throws with the
 * kernel's reason when it may not (not root, no nf_tables).
 */
export function openKernelQueue(
  addon: NetqAddon,
  cohorts: readonly KernelCohort[],
  ranges: (slot: number) => QueuedRange[],
): KernelQueue {
  removeLeftoverTables(addon);
  const links = new Float64Array(
    cohorts.flatMap((c) => [...linkNumbers(c.up, c.seed >>> 0), ...linkNumbers(c.down, (c.seed + 1) >>> 0)]),
  );
  let slot = -1;
  let queued: QueuedRange[] = [];
  for (
    let candidate = process.pid % KERNEL_SLOTS, tries = 0;
    tries < KERNEL_SLOTS;
    tries += 1, candidate = (candidate + 1) % KERNEL_SLOTS
  ) {
    queued = ranges(candidate);
    const matches = new Uint32Array(queued.flatMap((r) => [r.net, r.mask, r.cohort, r.up ? 1 : 0, r.down ? 1 : 0]));
    try {
      addon.start(QUEUE_BASE + candidate, MARK, links, matches);
      slot = candidate;
      break;
    } catch (error) {
      // Another agent on this host holds that queue: try the next.
      if ((error as NodeJS.ErrnoException).code !== "EBUSY") throw error;
    }
  }
  if (slot < 0)
    throw new Error(
      `every one of the ${KERNEL_SLOTS} netfilter queues ${QUEUE_BASE}–${QUEUE_BASE + KERNEL_SLOTS - 1} is taken by another process`,
    );
  const table = `${TABLE_PREFIX}${process.pid}`;
  try {
    addon.deleteTable(table);
    addon.createTable(
      table,
      QUEUE_BASE + slot,
      MARK,
      new Uint32Array(queued.flatMap((r) => [r.net, r.mask, r.up ? 1 : 0, r.down ? 1 : 0])),
    );
  } catch (error) {
    addon.stop();
    throw error;
  }
  let last: Float64Array = new Float64Array(cohorts.length * 2 * STATS);
  let closed = false;
  const clientRanges = new Uint32Array(queued.flatMap((r) => [r.net, r.mask, r.cohort]));
  let retransmitted = new Map<string, number>();
  return {
    slot,
    table,
    takeTallies() {
      const now = addon.stats();
      const tallies = cohorts.map(() => emptyTally());
      for (let c = 0; c < cohorts.length; c += 1) {
        for (let dir = 0; dir < 2; dir += 1) {
          const at = (c * 2 + dir) * STATS;
          const delta = (i: number) => (now[at + i] ?? 0) - (last[at + i] ?? 0);
          const tally = tallies[c]!;
          tally.packets += delta(0);
          tally.dropped += delta(1);
          tally.duplicated += delta(2);
          tally.reordered += delta(3);
          tally.overflowed += delta(4);
        }
      }
      last = now;
      return tallies;
    },
    takeTcpRetransmits() {
      const sockets = addon.tcpRetransmits(clientRanges);
      const perCohort = cohorts.map(() => 0);
      const seen = new Map<string, number>();
      for (let i = 0; i < sockets.length; i += 4) {
        const cookie = `${sockets[i]}:${sockets[i + 1]}`;
        const total = sockets[i + 3]!;
        perCohort[sockets[i + 2]!]! += Math.max(0, total - (retransmitted.get(cookie) ?? 0));
        seen.set(cookie, total);
      }
      retransmitted = seen;
      return perCohort;
    },
    close() {
      if (closed) return;
      closed = true;
      // The rules go first, so no packet is queued to a queue no one reads; then what is held is let go.
      try {
        addon.deleteTable(table);
      } finally {
        addon.stop();
      }
    },
  };
}
