import { promises as fs } from "node:fs";
import { loadavg } from "node:os";
import type { PlanSpecInput } from "@throng/protocol/plan";
import { TERMINAL_RUN_STATUSES, RunReport } from "@throng/protocol/run";
import type { PointStages } from "@throng/core/metrics/ingest-stages";
import { spawnChild, stopAllChildren, type Child } from "../infra/local/child";
import { prefixedLog } from "../infra/local/log";
import { runBenchMain } from "./bench-main";
import { freePort } from "../infra/local/ports";
import { makeTempDir } from "../infra/local/temp-dir";
import { startBenchServers } from "./bench-servers";
import { waitUntil } from "../infra/local/wait";
import { getSeries, signUp, waitForAgents, waitForStatus } from "../tests/fault/support/api-client";
import { agentBin, ensureAgentBuilt, startApi, startWorkers, root } from "../tests/fault/support/processes";
import { treeMemory, treePids } from "../agent/bench/process-tree";
import { weighSession } from "../agent/bench/sessions";
import { spawnRigAgent } from "../tests/support/agent-process";

const log = prefixedLog("bench");
const argValue = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const clients = Math.min(Number(argValue("--clients") ?? 200_000), 1_000_000);
const agents = Math.min(Math.max(1, Number(argValue("--agents") ?? 1)), 16);
const rampUpSec = Math.min(Number(argValue("--ramp-sec") ?? 40), 600);
const holdSec = Math.min(Number(argValue("--hold-sec") ?? 60), 600);
/** BENCH_AUTOGROUP_NICE=-10: every process this bench started (each in a session of its own) weighed against the host's others (root). */
const autogroupNice = process.env.BENCH_AUTOGROUP_NICE ? Number(process.env.BENCH_AUTOGROUP_NICE) : undefined;
const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const MiB = 2 ** 20;

/** p50 / p99 of `values`, in ms. */
function percentiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return `${fmt(at(50), 1)} / ${fmt(at(99), 1)} ms`;
}

async function startTarget(processes: number): Promise<{ child: Child; url: string }> {
  let url = "";
  const child = spawnChild({
    name: "target",
    command: process.execPath,
    cwd: root,
    args: [agentBin, "target", "--port", "0", "--processes", String(processes)],
    log: (line) => (url ||= /target listening on (ws:\/\/\S+)/.exec(line)?.[1] ?? ""),
  });
  await waitUntil(async () => url !== "", { what: "the target to listen", timeoutMs: 60_000, abort: child.diedEarly });
  return { child, url };
}

async function main(): Promise<void> {
  const dir = await makeTempDir("throng-bench-scale-");
  try {
    await ensureAgentBuilt();
    const { env } = await startBenchServers(dir);
    const points: PointStages[] = [];
    const port = await freePort();
    // Debug level: the api logs each live point's stage times (core/metrics/ingest-stages.ts).
    await startApi(env, port, "api", { LOG_LEVEL: "debug" }, [], (line) => {
      if (line.includes('"live point stages"')) points.push((JSON.parse(line) as { stages: PointStages }).stages);
    });
    await startWorkers(env);
    const apiUrl = `http://127.0.0.1:${port}`;
    const browser = await signUp(apiUrl);
    const target = await startTarget(Math.ceil((clients * 1.1) / 19_744));
    const agentPids: number[] = [];
    for (let i = 0; i < agents; i += 1) {
      const { token } = await browser.request<{ token: string }>("POST", "/api/enrolment-tokens", {
        expiresInMinutes: 60,
      });
      const agent = spawnRigAgent(i, { server: apiUrl, token, home: dir });
      agentPids.push(agent.process.pid!);
    }
    await waitForAgents(browser, agents);
    const plan: PlanSpecInput = {
      name: `c${clients / 1000}k over ${agents} agent(s)`,
      target: { protocol: "websocket", url: target.url },
      scenario: { kind: "ping-pong", intervalMs: 10_000, messageBytes: 164, responseBytes: 71 },
      load: { clients, durationSec: rampUpSec + holdSec, rampUpSec },
      slos: [
        { metric: "rtt-p99-ms", below: 1_000 },
        { metric: "error-rate", below: 0.001 },
      ],
    };
    const { id: planId } = await browser.request<{ id: string }>("POST", "/api/plans", plan);
    if (autogroupNice !== undefined) for (const pid of treePids(process.pid).slice(1)) weighSession(pid, autogroupNice);
    const loadBefore = loadavg()[0]!.toFixed(2);
    const { id: runId } = await browser.request<{ id: string }>("POST", `/api/plans/${planId}/runs`);
    log(
      `run ${runId}: ${fmt(clients)} clients over ${agents} agent(s), ${rampUpSec} s ramp, ${holdSec} s hold (load average ${loadBefore})`,
    );
    // Memory at the middle of the hold: every agent's tree.
    const memoryAt = setTimeout(
      () => {
        const trees = agentPids.map((pid) => treeMemory(pid));
        log(
          `agents at the hold: PSS ${fmt(trees.reduce((s, t) => s + t.pssBytes, 0) / MiB)} MiB, RSS ${fmt(trees.reduce((s, t) => s + t.rssBytes, 0) / MiB)} MiB over ${trees.reduce((s, t) => s + t.processes, 0)} processes`,
        );
      },
      (rampUpSec + holdSec / 2 + 3) * 1000,
    );
    const { run } = await waitForStatus(browser, runId, [...TERMINAL_RUN_STATUSES], (rampUpSec + holdSec + 180) * 1000);
    clearTimeout(memoryAt);
    const loadAfter = loadavg()[0]!.toFixed(2);
    const series = await getSeries(browser, runId);
    const report = RunReport.parse(await browser.request("GET", `/api/runs/${runId}/report`));
    const fleet = (
      await browser.request<{ agents: { id: string; hostname: string; capacity?: unknown }[] }>("GET", "/api/agents")
    ).agents;
    const lastHealth = new Map<string, NonNullable<(typeof series)[number]["agentHealth"]>[number]>();
    for (const point of series) for (const health of point.agentHealth ?? []) lastHealth.set(health.agentId, health);
    const ownPoints = points.filter((p) => p.runId === runId);
    const causes: Record<string, number> = {};
    for (const point of series)
      for (const [cause, n] of Object.entries(point.errorsByKind ?? {})) causes[cause] = (causes[cause] ?? 0) + n;
    const lines = [
      `| figure | result |`,
      `|---|---|`,
      `| run | ${run.status}, verdict ${run.verdict?.outcome ?? "none"}${run.verdict?.reasons.length ? ` (${run.verdict.reasons.join("; ")})` : ""}; load average ${loadBefore} before, ${loadAfter} after |`,
      `| run summary (run page, report) | peak connections ${fmt(run.summary?.peakConnections ?? 0)}, peak clients ${fmt(run.summary?.peakClients ?? 0)}, agents ${run.summary?.agents}, ${fmt(run.summary?.messagesReceived ?? 0)} of ${fmt(run.summary?.messagesSent ?? 0)} pings answered, ${fmt(run.summary?.connectionsFailed ?? 0)} connections failed (errors by cause ${JSON.stringify(causes)}), RTT p50 ${run.summary?.rttP50Ms} ms, p99 ${run.summary?.rttP99Ms} ms |`,
      `| report | peak connections ${fmt(report.run.summary?.peakConnections ?? 0)}; ${report.series.length} seconds, the most connections in one ${fmt(Math.max(...report.series.map((p) => p.connections)))} |`,
      ...fleet.map((agent) => {
        const health = lastHealth.get(agent.id);
        return `| agent ${agent.hostname} (${agent.id.slice(0, 8)}) | ${health ? `${health.engines ?? 1} engine processes, CPU ${fmt(health.cpuPercent)}%, RSS ${fmt(health.rssBytes / MiB)} MiB, open files ${fmt(health.openFds ?? 0)} of ${fmt((health.fdLimit ?? 0) * (health.engines ?? 1))}${health.saturated ? `, saturated: ${health.saturatedReason}` : ""}` : "no health"}; capacity ${JSON.stringify(agent.capacity)} |`;
      }),
      `| merge of one second (api) | ${ownPoints.length} live points: merge start → point built ${percentiles(ownPoints.map((p) => p.builtAt - p.startedAt))}, lock held → built ${percentiles(ownPoints.map((p) => p.builtAt - p.lockedAt))}, built → published ${percentiles(ownPoints.map((p) => p.publishedAt - p.builtAt))} (p50 / p99) |`,
      `| events | ${run.events.map((e) => `${e.kind}: ${e.message}`).join("; ") || "none"} |`,
      `| seconds with errors | ${
        series
          .filter((p) => p.errors > 0)
          .map((p) => `${p.t - series[0]!.t}s: ${p.errors} (${fmt(p.connections)} connected)`)
          .slice(0, 40)
          .join(", ") || "none"
      } |`,
    ];
    const weighed =
      autogroupNice !== undefined
        ? ` (every process in a session of its own weighed ${autogroupNice}, BENCH_AUTOGROUP_NICE)`
        : "";
    console.log(
      `\n${fmt(clients)} clients over ${agents} agent(s) through the control plane${weighed}:\n\n${lines.join("\n")}\n`,
    );
  } finally {
    await stopAllChildren();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

runBenchMain(main, log);
