import { loadavg } from "node:os";
import type { Log } from "../../infra/local/log";
import { waitUntil } from "../../infra/local/wait";
import type { Browser } from "../../tests/fault/support/api-client";
import { WEB_ORIGIN } from "../../tests/fault/support/processes";
import { watchReceipts } from "./live-receipts";
import { watchProcess } from "./process-usage";
import { startSimAgent, type SimAgent } from "./sim-agent";
import { stageBreakdown, type Stage, type StageCollector } from "./stages";
import { readStoredRun } from "./stored-run";
import { snapshotBodies } from "./snapshot-bodies";
import type { StepResult } from "./table";

const clientsPerAgent = 10;
const bodies = snapshotBodies();

/** Lower percentile of `values`, where Infinity (never arrived) counts as a value too. */
function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  const value = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  return Number.isFinite(value) ? value : null;
}

/** Connects `count` simulated agents, 25 at a time (each enrolment hashes a secret). */
async function connectFleet(count: number, label: string, gatewayUrl: string, token: string): Promise<SimAgent[]> {
  const fleet: SimAgent[] = [];
  while (fleet.length < count) {
    const batch = Array.from({ length: Math.min(25, count - fleet.length) }, (_, i) =>
      startSimAgent({ gatewayUrl, token, index: fleet.length + i, bodies, labels: { fleet: label } }),
    );
    fleet.push(...batch);
    await Promise.all(batch.map((agent) => agent.ready));
  }
  return fleet;
}

/** One run on a fleet of `count` agents; waits (bounded) for the last acks, then reads what everyone saw. */
export async function runStep(options: {
  count: number;
  label: string;
  runSeconds: number;
  drainSec: number;
  browser: Browser;
  apiUrl: string;
  apiPid: number;
  gatewayUrl: string;
  databaseUrl: string;
  log: Log;
  stages: StageCollector;
}): Promise<StepResult> {
  const { count, label, runSeconds, browser } = options;
  const { token } = await browser.request<{ token: string }>("POST", "/api/enrolment-tokens", { expiresInMinutes: 60 });
  const fleet = await connectFleet(count, label, options.gatewayUrl, token);
  try {
    const plan = await browser.request<{ id: string }>("POST", "/api/plans", {
      name: `bench ${count} agents`,
      target: { protocol: "websocket", url: "ws://127.0.0.1:9/ws" },
      scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
      load: { clients: count * clientsPerAgent, durationSec: runSeconds, rampUpSec: 0 },
      agents: { count, labels: { fleet: label }, onLost: "continue" },
    });
    const loadAverage = loadavg()[0]!;
    const usage = watchProcess(options.apiPid);
    const benchCpu = process.cpuUsage();
    const runId = (await browser.request<{ id: string }>("POST", `/api/plans/${plan.id}/runs`)).id;
    const live = watchReceipts(`${options.apiUrl}/api/runs/${runId}/live`, {
      origin: WEB_ORIGIN,
      cookie: browser.cookie(),
    });
    // The run closes when every shard reported, or at its planned end plus the orchestrator's 15 s grace.
    const closedBy = Date.now() + (runSeconds + 15 + options.drainSec) * 1000;
    await waitUntil(
      async () => ["finished", "failed", "aborted"].includes((await readStoredRun(options.databaseUrl, runId)).status),
      {
        what: "the run to close",
        timeoutMs: Math.max(0, closedBy - Date.now()),
        intervalMs: 500,
      },
    ).catch(() =>
      options.log(
        `${count} agents: the run did not close within ${options.drainSec} s after its planned end plus grace`,
      ),
    );
    const allAcked = () =>
      fleet.every((agent) => {
        const stats = agent.runs.get(runId);
        return stats !== undefined && stats.sentAt.size === runSeconds && stats.acked.size === runSeconds;
      });
    await waitUntil(async () => allAcked() && live.firstSeen.size >= count * runSeconds, {
      what: "the last acks",
      timeoutMs: options.drainSec * 1000,
      intervalMs: 250,
    }).catch(() => options.log(`${count} agents: not drained ${options.drainSec} s after the run ended`));
    const { cpuPercent, peakRssBytes } = usage.stop();
    const benchUsed = process.cpuUsage(benchCpu);
    const benchCpuSec = (benchUsed.user + benchUsed.system) / 1e6;
    options.log(
      `${count} agents: this process (simulated fleet + browser) used ${((benchCpuSec / usage.wallSec()) * 100).toFixed(0)} % CPU over the step`,
    );
    await live.stop();

    const latencies: number[] = [];
    const stageSamples: Record<Stage, number>[] = [];
    const bySecond = new Map<number, number[]>();
    let sent = 0,
      acked = 0,
      notLive = 0,
      firstSend = Infinity,
      lastAck = 0;
    for (const agent of fleet) {
      const stats = agent.runs.get(runId);
      if (!stats) continue;
      sent += stats.sentAt.size;
      acked += stats.acked.size;
      lastAck = Math.max(lastAck, stats.lastAckAt);
      for (const [t, at] of stats.sentAt) {
        firstSend = Math.min(firstSend, at);
        const seen = live.firstSeen.get(`${agent.id}:${t}`);
        if (seen === undefined) notLive += 1;
        latencies.push(seen === undefined ? Infinity : seen - at);
        if (!bySecond.has(t)) bySecond.set(t, []);
        bySecond.get(t)!.push(seen === undefined ? Infinity : seen - at);
        const api = options.stages.of(runId, agent.id, t);
        if (api && seen !== undefined) {
          stageSamples.push(
            Object.fromEntries(
              [...Object.entries(api), ["browser", seen]].map(([stage, when]) => [
                stage,
                when === null ? NaN : (when as number) - at,
              ]),
            ) as Record<Stage, number>,
          );
        }
      }
    }
    latencies.sort((a, b) => a - b);
    options.log(
      `${count} agents: ${options.stages.merges.points} live points, their merges read ${options.stages.merges.readRows} snapshots back from storage`,
    );
    options.log(
      `${count} agents: p99 ms by second of the run: ${[...bySecond.entries()]
        .sort(([a], [b]) => a - b)
        .map(
          ([, values]) =>
            percentile(
              values.sort((a, b) => a - b),
              99,
            ) ?? "> drain",
        )
        .join(", ")}`,
    );
    const stored = await readStoredRun(options.databaseUrl, runId);
    const wallSec = Math.max(1, (lastAck - firstSend) / 1000 + 1); // the first second's snapshots go out at its end
    return {
      agents: count,
      ingestedPerSec: acked / wallSec,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      apiCpuPercent: cpuPercent,
      apiCpuMsPerSnapshot: acked ? ((cpuPercent / 100) * usage.wallSec() * 1000) / acked : 0,
      apiPeakRssMb: peakRssBytes / 2 ** 20,
      sent,
      notAcked: count * runSeconds - acked,
      notLive,
      incompleteSeconds: runSeconds - stored.agentsPerSecond.filter((agents) => agents === count).length,
      loadAverage,
      run: stored.status,
      stages: stageBreakdown(count, stageSamples),
    };
  } finally {
    for (const agent of fleet) agent.close();
  }
}
