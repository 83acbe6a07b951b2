// A run's seconds and its summary from its stored snapshots, for the control plane and `throng-agent run` alike, so
// both judge the same figures (docs/verdicts.md).
import { AgentHealth, type SeriesPoint, type SnapshotCounters, type StoredSnapshot } from "@throng/protocol/snapshot";
import type { CohortSummary, RunSummary } from "@throng/protocol/run";
import { cohortRows, mergeRows } from "./snapshot-merge";

/** One second of a run merged across its agents: counters summed, histograms merged. */
export function mergeSecond(second: number, rows: readonly StoredSnapshot[]): SeriesPoint {
  return mergeRows(rows).point(second);
}

/** Groups a run's snapshots by second and merges each second. */
export function buildSeries(rows: readonly StoredSnapshot[]): SeriesPoint[] {
  const bySecond = new Map<number, StoredSnapshot[]>();
  for (const row of rows) {
    const list = bySecond.get(row.second) ?? [];
    list.push(row);
    bySecond.set(row.second, list);
  }
  return [...bySecond.entries()].sort(([a], [b]) => a - b).map(([second, list]) => mergeSecond(second, list));
}

/** Which agents were the bottleneck, for how many seconds, and the first reason each gave. */
function saturatedAgents(rows: readonly StoredSnapshot[]): RunSummary["saturatedAgents"] {
  const byAgent = new Map<string, { seconds: number; reason: string }>();
  for (const row of rows) {
    const health = AgentHealth.parse(row.health);
    if (!health.saturated) continue;
    const entry = byAgent.get(row.agentId) ?? { seconds: 0, reason: health.saturatedReason ?? "saturated" };
    entry.seconds += 1;
    byAgent.set(row.agentId, entry);
  }
  return [...byAgent.entries()].map(([agentId, e]) => ({ agentId, ...e }));
}

/** Each network cohort's totals, summarised exactly as the run's are, over its clients' figures only. */
function cohortSummaries(rows: readonly StoredSnapshot[]): Record<string, CohortSummary> | undefined {
  const byCohort = cohortRows(rows);
  if (!byCohort.size) return undefined;
  return Object.fromEntries(
    [...byCohort].map(([name, cohort]) => {
      const { saturatedAgents: _, cohorts: __, ...figures } = summariseRun(cohort.rows);
      return [name, { ...figures, applied: cohort.applied }];
    }),
  );
}

/** Connections closed by anything but the agent itself ("server", "reset", "error"): what the server dropped. */
function droppedConnections(closesByCause: Record<string, number> | undefined): number {
  return Object.entries(closesByCause ?? {}).reduce((n, [cause, count]) => (cause === "agent" ? n : n + count), 0);
}

/**
 * The seconds the rows cover and the most clients and open connections of any one of them (summed over its agents, as
 * a series point sums them). Read from the counters alone: building the series for this merged every second's
 * histograms again and was most of a one-hour range summary's time (bench:range).
 */
function secondPeaks(rows: readonly StoredSnapshot[]): { seconds: number; clients: number; connections: number } {
  const bySecond = new Map<number, { clients: number; connections: number }>();
  for (const row of rows) {
    const second = bySecond.get(row.second) ?? { clients: 0, connections: 0 };
    second.clients += row.clients;
    // mergeRows has parsed every row's counters already: a row that is not a snapshot never gets here.
    second.connections += (row.counters as SnapshotCounters).connectionsOpen;
    bySecond.set(row.second, second);
  }
  const seconds = [...bySecond.values()];
  return {
    seconds: seconds.length,
    clients: seconds.reduce((most, s) => Math.max(most, s.clients), 0),
    connections: seconds.reduce((most, s) => Math.max(most, s.connections), 0),
  };
}

/** Totals over the whole run from every stored snapshot; one histogram merge over all of them. */
export function summariseRun(rows: readonly StoredSnapshot[]): RunSummary {
  const all = mergeRows(rows);
  const totals = all.totals();
  const peaks = secondPeaks(rows);
  const durationMs = rows.length === 0 ? 0 : peaks.seconds * 1000;
  const rtt = all.rtt();
  const latency = all.latency();
  const script = all.script();
  const sessionSteps = all.sessionSteps();
  const saturated = saturatedAgents(rows);
  const { errorsByKind, closesByCause, ...scenario } = all.scenario();
  return {
    agents: totals.agents,
    peakClients: peaks.clients,
    peakConnections: peaks.connections,
    durationSec: durationMs / 1000,
    messagesSent: totals.messagesSent,
    messagesReceived: totals.messagesReceived,
    messagesPerSec: durationMs > 0 ? Math.round((totals.messagesReceived * 1000 * 100) / durationMs) / 100 : 0,
    connectionsFailed: totals.connectionsFailed,
    connectionsOpened: totals.connectionsOpened,
    connectionsDropped: droppedConnections(closesByCause),
    errors: totals.countedErrors,
    rttP50Ms: rtt.p50Ms,
    rttP99Ms: rtt.p99Ms,
    rttMaxMs: rtt.maxMs,
    roundTrips: rtt.count,
    rttP90Ms: rtt.p90Ms,
    ...(Object.keys(latency).length ? { latency } : {}),
    ...(Object.keys(script).length ? { script } : {}),
    ...(Object.keys(sessionSteps).length ? { sessionSteps } : {}),
    ...(scenario as Partial<RunSummary>),
    ...(errorsByKind ? { errorsByKind } : {}),
    ...(saturated?.length ? { saturatedAgents: saturated } : {}),
    ...withCohorts(cohortSummaries(rows)),
  };
}

const withCohorts = (cohorts: Record<string, CohortSummary> | undefined) => (cohorts ? { cohorts } : {});
