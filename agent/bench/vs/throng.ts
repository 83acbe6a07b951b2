// Throng itself as one more `--vs` row, so its figures come from the same neutral meter as the competitors'
// (the target's counters, the process's CPU and RSS from /proc) rather than from its own snapshots.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PlanSpecInput } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { localRun } from "../../src/metrics/run-summary";
import type { VsScenario, VsTarget, VsTool } from "./shared";

function planFor(scenario: VsScenario, target: VsTarget): PlanSpecInput {
  if (scenario.kind === "s1") {
    return {
      name: `vs S1 ${scenario.clients}`,
      target: { protocol: "websocket", url: target.wsUrl },
      scenario: { kind: "ping-pong", intervalMs: scenario.intervalMs, messageBytes: 164, responseBytes: 71 },
      load: {
        clients: scenario.clients,
        durationSec: scenario.rampUpSec + scenario.holdSec,
        rampUpSec: scenario.rampUpSec,
      },
    };
  }
  if (scenario.kind === "s2") {
    return {
      name: `vs S2 ${scenario.protocol}`,
      target:
        scenario.protocol === "tcp"
          ? {
              protocol: "tcp",
              host: "127.0.0.1",
              port: target.tcpPort,
              framing: { kind: "length-prefix", headerBytes: 2 },
            }
          : { protocol: "websocket", url: target.wsUrl, frames: "binary" },
      scenario: { kind: "echo-flood", messageBytes: 8, maxInFlight: 1 },
      load: { clients: scenario.connections, durationSec: scenario.durationSec, rampUpSec: 0 },
    };
  }
  return {
    name: "vs S3",
    target: { protocol: "websocket", url: target.wsUrl },
    scenario: { kind: "login-storm" },
    load: { clients: scenario.clients, durationSec: scenario.holdSec, rampUpSec: 0 },
  };
}

export function throngTool(bundle: string): VsTool {
  const outOf = (dir: string, scenario: VsScenario) =>
    join(dir, `throng-${scenario.kind}-${scenario.kind === "s2" ? scenario.protocol : scenario.clients}.jsonl`);
  return {
    name: "Throng",
    prepare: async () => (existsSync(bundle) ? undefined : `${bundle} not built`),
    command(scenario, target, dir) {
      const planPath = outOf(dir, scenario).replace(/\.jsonl$/, ".json");
      writeFileSync(planPath, JSON.stringify(planFor(scenario, target)));
      return {
        argv: [process.execPath, bundle, "run", planPath, "--engines", "1", "--quiet", "--out", outOf(dir, scenario)],
      };
    },
    latency(scenario, dir) {
      const out = outOf(dir, scenario);
      if (!existsSync(out)) return undefined;
      const snapshots = readFileSync(out, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as MetricSnapshot);
      const summary = localRun(snapshots).summary;
      if (scenario.kind === "s3")
        return `connect p50 ${summary?.latency?.connect?.p50Ms ?? "-"} / p99 ${summary?.latency?.connect?.p99Ms ?? "-"} ms`;
      return `RTT p50 ${summary?.rttP50Ms ?? "-"} / p99 ${summary?.rttP99Ms ?? "-"} ms`;
    },
  };
}
