import { readdirSync, readFileSync, statSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { AgentHealth } from "@throng/protocol/snapshot";

const LOOP_RESOLUTION_MS = 10;
/** Above these the agent, not the server, is the likely limit: its timers and reads run late. */
export const SATURATION = { cpuPercent: 90, eventLoopP99Ms: 25 } as const;
/**
 * Descriptors an engine keeps for itself, never for connections: stdio, its IPC channel, epoll and event fds, the
 * /proc files its health sampler reads (an engine with none left died of "EMFILE: too many open files,
 * uv_resident_set_memory"), a script's worker thread, name lookups. An engine opens at most its open-file limit
 * less this many connections (engine/open-files.ts); past that a connection fails with cause "limit".
 */
export const DESCRIPTOR_RESERVE = 256;

/**
 * The most descriptors a process holds before it refuses another connection: its connections may take the limit
 * less DESCRIPTOR_RESERVE, on top of the descriptors it held before its first one (stdio, IPC, epoll: its own, counted
 * at most up to half the reserve, so the other half stays free for what it opens later).
 */
export function descriptorCeiling(limit: number, ownBeforeConnections: number): number {
  return Math.max(0, limit - DESCRIPTOR_RESERVE + Math.min(Math.max(0, ownBeforeConnections), DESCRIPTOR_RESERVE / 2));
}
/**
 * A condition must hold this many whole seconds in a row before the agent is called saturated, and it is from that
 * second on (the seconds before it are not flagged after the fact): one busy second is host noise or a burst of
 * connects, not an agent that cannot keep up.
 */
export const SATURATION_SECONDS = 3;
/** A snapshot shorter than this (the run's closing partial second, an abort) is not judged at all. */
export const WHOLE_SECOND_MS = 900;

export interface HealthSampler {
  /**
   * Health over the time since the previous sample (or since creation). `intervalMs` is the snapshot's length: only
   * whole seconds are judged for saturation.
   */
  sample(intervalMs?: number): AgentHealth;
  stop(): void;
}

/**
 * Open file descriptors of this process (Linux /proc), or undefined elsewhere. Linux 6.2+ gives the count as
 * the size of /proc/self/fd, in O(1); listing the directory (the fallback) cost ~10% of the agent's CPU at 10k
 * connections, once a second.
 */
export function openFileCount(): number | undefined {
  try {
    const size = statSync("/proc/self/fd").size;
    return size > 0 ? size : readdirSync("/proc/self/fd").length;
  } catch {
    return undefined;
  }
}

/** The soft open-file limit of this process (Linux /proc), or undefined elsewhere. */
export function openFileLimit(): number | undefined {
  return openFileLimits()?.soft;
}

/** The soft and hard open-file limits of this process (Linux /proc; "unlimited" reads as Infinity), or undefined elsewhere. */
export function openFileLimits(path = "/proc/self/limits"): { soft: number; hard: number } | undefined {
  try {
    const line = readFileSync(path, "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const [soft, hard] = (line?.split(/\s{2,}/) ?? [])
      .slice(1, 3)
      .map((field) => (field === "unlimited" ? Infinity : /^\d+$/.test(field ?? "") ? Number(field) : NaN));
    return soft !== undefined && hard !== undefined && !Number.isNaN(soft) && !Number.isNaN(hard)
      ? { soft, hard }
      : undefined;
  } catch {
    return undefined;
  }
}

/** What a condition is judged against: the engine's cores, and its descriptors before any connection (descriptorCeiling). */
interface JudgedAgainst {
  cores: number;
  ownDescriptors: number;
}

interface Condition {
  holds(health: AgentHealth, against: JudgedAgainst): boolean;
  /** The condition and its window in words, with this second's figure. */
  says(health: AgentHealth, against: JudgedAgainst, seconds: number): string;
}

const CONDITIONS: Condition[] = [
  {
    holds: (h, { cores }) => h.cpuPercent >= SATURATION.cpuPercent * cores,
    says: (h, { cores }, seconds) =>
      `CPU ≥ ${SATURATION.cpuPercent}% of ${cores === 1 ? "a core" : `its ${cores} cores`} for ${seconds} s (${h.cpuPercent}%)`,
  },
  {
    holds: (h) => h.eventLoopP99Ms >= SATURATION.eventLoopP99Ms,
    says: (h, _against, seconds) =>
      `event loop p99 delay ≥ ${SATURATION.eventLoopP99Ms} ms for ${seconds} s (${h.eventLoopP99Ms} ms)`,
  },
  {
    // At its limit less the reserve the engine refuses new connections (cause "limit"): it cannot hold more.
    holds: (h, { ownDescriptors }) =>
      h.openFds !== undefined && !!h.fdLimit && h.openFds >= descriptorCeiling(h.fdLimit, ownDescriptors),
    says: (h, _against, seconds) =>
      `file descriptors at the limit less the ${DESCRIPTOR_RESERVE} kept for the engine for ${seconds} s (${h.openFds} of ${h.fdLimit})`,
  },
];

export interface SaturationJudge {
  /** Why the agent itself was the bottleneck this second, or undefined when it was not (or the second was partial). */
  judge(health: AgentHealth, intervalMs: number): string | undefined;
}

/**
 * Judges one engine's seconds in order: a condition (CPU of its `cores`, event-loop delay, descriptors at the
 * ceiling its connections may reach given the `ownDescriptors` it held before them) flags the agent saturated from
 * the SATURATION_SECONDS-th whole second in a row it holds. A partial second neither counts toward a window nor breaks one.
 */
export function createSaturationJudge(cores = 1, ownDescriptors = 0): SaturationJudge {
  const against = { cores, ownDescriptors };
  const streaks = CONDITIONS.map(() => 0);
  return {
    judge(health, intervalMs) {
      if (intervalMs < WHOLE_SECOND_MS) return undefined;
      let reason: string | undefined;
      CONDITIONS.forEach((condition, i) => {
        streaks[i] = condition.holds(health, against) ? streaks[i]! + 1 : 0;
        if (reason === undefined && streaks[i]! >= SATURATION_SECONDS)
          reason = condition.says(health, against, streaks[i]!);
      });
      return reason;
    },
  };
}

/** The host's CPU time from /proc/stat's `cpu` line: `steal`, and the total of user through steal (guest is within user). */
export function cpuTimes(stat: string | undefined): { steal: number; total: number } | undefined {
  const line = stat?.split("\n", 1)[0];
  if (!line?.startsWith("cpu ")) return undefined;
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return undefined;
  return { steal: fields[7]!, total: fields.reduce((sum, n) => sum + n, 0) };
}

/** The share of the host's CPU time the hypervisor took between two readings, in percent; undefined without both. */
export function stealPercent(
  before: ReturnType<typeof cpuTimes>,
  after: ReturnType<typeof cpuTimes>,
): number | undefined {
  if (!before || !after || after.total <= before.total) return undefined;
  return round2(Math.min(100, Math.max(0, ((after.steal - before.steal) / (after.total - before.total)) * 100)));
}

function readProcStat(): string | undefined {
  try {
    return readFileSync("/proc/stat", "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Measures the generator itself, so a report can say when the agent, not the server, was the limit, and the host's
 * CPU steal (`procStat` reads /proc/stat; injected by tests).
 */
export function createHealthSampler(options: { procStat?: () => string | undefined } = {}): HealthSampler {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  let lastCpu = process.cpuUsage();
  let lastWall = process.hrtime.bigint();
  const fdLimit = openFileLimit();
  const procStat = options.procStat ?? readProcStat;
  let lastHostCpu = cpuTimes(procStat());
  // Created before the shard's first connection: what is open now is the engine's own.
  const judge = createSaturationJudge(1, openFileCount() ?? 0);
  // Reading RSS opens /proc/self/stat: an engine out of descriptors keeps its last reading instead of dying of EMFILE.
  let rssBytes = 0;
  const rss = () => {
    try {
      rssBytes = process.memoryUsage.rss();
    } catch {
      // keeps the last reading
    }
    return rssBytes;
  };

  return {
    sample(intervalMs) {
      const wall = process.hrtime.bigint();
      const cpu = process.cpuUsage(lastCpu);
      const wallUs = Number(wall - lastWall) / 1000;
      const cpuPercent = wallUs > 0 ? ((cpu.user + cpu.system) / wallUs) * 100 : 0;
      // The monitor's samples include its own timer period; what is left over is the lag.
      const p99Ms = loop.percentile(99) / 1e6 - LOOP_RESOLUTION_MS;
      // One stall (SIGSTOP, swap) is one sample among the second's hundred: only the longest shows it.
      const maxMs = loop.max / 1e6 - LOOP_RESOLUTION_MS;
      loop.reset();
      lastCpu = process.cpuUsage();
      lastWall = wall;
      const openFds = openFileCount();
      const hostCpu = cpuTimes(procStat());
      const steal = stealPercent(lastHostCpu, hostCpu);
      lastHostCpu = hostCpu;
      const health: AgentHealth = {
        cpuPercent: round2(Math.max(0, cpuPercent)),
        eventLoopP99Ms: Number.isFinite(p99Ms) ? round2(Math.max(0, p99Ms)) : 0,
        eventLoopMaxMs: Number.isFinite(maxMs) ? round2(Math.max(0, maxMs)) : 0,
        rssBytes: rss(),
        ...(openFds !== undefined ? { openFds } : {}),
        ...(fdLimit !== undefined ? { fdLimit } : {}),
        ...(steal !== undefined ? { stealPercent: steal } : {}),
      };
      const reason = judge.judge(health, intervalMs ?? wallUs / 1000);
      return { ...health, saturated: reason !== undefined, ...(reason ? { saturatedReason: reason } : {}) };
    },
    stop() {
      loop.disable();
    },
  };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
