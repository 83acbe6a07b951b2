import { readdirSync, readFileSync, statSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { AgentHealth } from "@throng/protocol/snapshot";

const LOOP_RESOLUTION_MS = 10;
/** Above these the agent, not the server, is the likely limit: its timers and reads run late. */
export const SATURATION = { cpuPercent: 90, eventLoopP99Ms: 25, fdShare: 0.95 } as const;
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
  try {
    const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"));
    const soft = line?.split(/\s{2,}/)[1];
    return soft && /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}

interface Condition {
  holds(health: AgentHealth, cores: number): boolean;
  /** The condition and its window in words, with this second's figure. */
  says(health: AgentHealth, cores: number, seconds: number): string;
}

const CONDITIONS: Condition[] = [
  {
    holds: (h, cores) => h.cpuPercent >= SATURATION.cpuPercent * cores,
    says: (h, cores, seconds) => `CPU ≥ ${SATURATION.cpuPercent}% of ${cores === 1 ? "a core" : `its ${cores} cores`} for ${seconds} s (${h.cpuPercent}%)`,
  },
  {
    holds: (h) => h.eventLoopP99Ms >= SATURATION.eventLoopP99Ms,
    says: (h, _cores, seconds) => `event loop p99 delay ≥ ${SATURATION.eventLoopP99Ms} ms for ${seconds} s (${h.eventLoopP99Ms} ms)`,
  },
  {
    holds: (h) => h.openFds !== undefined && !!h.fdLimit && h.openFds >= h.fdLimit * SATURATION.fdShare,
    says: (h, _cores, seconds) => `file descriptors ≥ ${SATURATION.fdShare * 100}% of the limit for ${seconds} s (${h.openFds} of ${h.fdLimit})`,
  },
];

export interface SaturationJudge {
  /** Why the agent itself was the bottleneck this second, or undefined when it was not (or the second was partial). */
  judge(health: AgentHealth, intervalMs: number): string | undefined;
}

/**
 * Judges one engine's seconds in order: a condition (CPU of its `cores`, event-loop delay, descriptors) flags the
 * agent saturated from the SATURATION_SECONDS-th whole second in a row it holds. A partial second neither counts
 * toward a window nor breaks one.
 */
export function createSaturationJudge(cores = 1): SaturationJudge {
  const streaks = CONDITIONS.map(() => 0);
  return {
    judge(health, intervalMs) {
      if (intervalMs < WHOLE_SECOND_MS) return undefined;
      let reason: string | undefined;
      CONDITIONS.forEach((condition, i) => {
        streaks[i] = condition.holds(health, cores) ? streaks[i]! + 1 : 0;
        if (reason === undefined && streaks[i]! >= SATURATION_SECONDS) reason = condition.says(health, cores, streaks[i]!);
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
export function stealPercent(before: ReturnType<typeof cpuTimes>, after: ReturnType<typeof cpuTimes>): number | undefined {
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
  const judge = createSaturationJudge();

  return {
    sample(intervalMs) {
      const wall = process.hrtime.bigint();
      const cpu = process.cpuUsage(lastCpu);
      const wallUs = Number(wall - lastWall) / 1000;
      const cpuPercent = wallUs > 0 ? ((cpu.user + cpu.system) / wallUs) * 100 : 0;
      // The monitor's samples include its own timer period; what is left over is the lag.
      const p99Ms = loop.percentile(99) / 1e6 - LOOP_RESOLUTION_MS;
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
        rssBytes: process.memoryUsage.rss(),
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
