import { readdirSync, readFileSync, statSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { AgentHealth } from "@throng/protocol/snapshot";

const LOOP_RESOLUTION_MS = 10;
/** Above these the agent, not the server, is the likely limit: its timers and reads run late. */
export const SATURATION = { cpuPercent: 90, eventLoopP99Ms: 25, fdShare: 0.95 } as const;

export interface HealthSampler {
  /** Health over the time since the previous sample (or since creation). */
  sample(): AgentHealth;
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

/** Says why the agent itself was the bottleneck, or undefined when it was not. */
export function saturationReason(health: AgentHealth, cores = 1): string | undefined {
  if (health.cpuPercent >= SATURATION.cpuPercent * cores) return `agent CPU at ${health.cpuPercent}%`;
  if (health.eventLoopP99Ms >= SATURATION.eventLoopP99Ms) return `agent event loop p99 delay ${health.eventLoopP99Ms} ms`;
  if (health.openFds !== undefined && health.fdLimit && health.openFds >= health.fdLimit * SATURATION.fdShare) {
    return `agent has ${health.openFds} of ${health.fdLimit} file descriptors open`;
  }
  return undefined;
}

/** Measures the generator itself, so a report can say when the agent, not the server, was the limit. */
export function createHealthSampler(): HealthSampler {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  let lastCpu = process.cpuUsage();
  let lastWall = process.hrtime.bigint();
  const fdLimit = openFileLimit();

  return {
    sample() {
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
      const health: AgentHealth = {
        cpuPercent: round2(Math.max(0, cpuPercent)),
        eventLoopP99Ms: Number.isFinite(p99Ms) ? round2(Math.max(0, p99Ms)) : 0,
        rssBytes: process.memoryUsage.rss(),
        ...(openFds !== undefined ? { openFds } : {}),
        ...(fdLimit !== undefined ? { fdLimit } : {}),
      };
      const reason = saturationReason(health);
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
