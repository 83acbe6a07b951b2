import { monitorEventLoopDelay } from "node:perf_hooks";
import type { AgentHealth } from "@throng/protocol/snapshot";

const LOOP_RESOLUTION_MS = 10;

export interface HealthSampler {
  /** Health over the time since the previous sample (or since creation). */
  sample(): AgentHealth;
  stop(): void;
}

/** Measures the generator itself, so a report can say when the agent, not the server, was the limit. */
export function createHealthSampler(): HealthSampler {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  let lastCpu = process.cpuUsage();
  let lastWall = process.hrtime.bigint();

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
      return {
        cpuPercent: round2(Math.max(0, cpuPercent)),
        eventLoopP99Ms: Number.isFinite(p99Ms) ? round2(Math.max(0, p99Ms)) : 0,
        rssBytes: process.memoryUsage.rss(),
      };
    },
    stop() {
      loop.disable();
    },
  };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
