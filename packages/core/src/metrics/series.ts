import { AgentHealth, LatencyName, SnapshotCounters, type AgentHealthPoint, type SeriesPoint } from "@throng/protocol/snapshot";
import type { RunSummary } from "@throng/protocol/run";
import type { SnapshotRow } from "@throng/db/repos/snapshots";
import { latencyPercentiles, mergeEncoded, type LatencyPercentiles } from "./histogram";

const counters = (row: SnapshotRow): SnapshotCounters => SnapshotCounters.parse(row.counters);

/** Snapshot histogram field for each series latency name. */
const HISTOGRAM_FIELD: Record<LatencyName, string> = {
  rttCorrected: "rttCorrectedUs", connect: "connectUs", login: "loginUs", broadcast: "broadcastUs", jitter: "jitterUs",
};

/** Every latency beyond RTT that any of the rows measured, each merged across rows. */
function otherLatencies(rows: readonly SnapshotRow[]): Partial<Record<LatencyName, LatencyPercentiles>> {
  const out: Partial<Record<LatencyName, LatencyPercentiles>> = {};
  for (const name of LatencyName.options) {
    const encoded = rows.map((row) => row.histograms?.[HISTOGRAM_FIELD[name]]).filter((v): v is string => !!v);
    if (encoded.length) out[name] = latencyPercentiles(mergeEncoded(encoded));
  }
  return out;
}

function sumOptional(rows: readonly SnapshotRow[], pick: (c: SnapshotCounters) => number | undefined): number | undefined {
  let seen = false;
  let total = 0;
  for (const row of rows) {
    const value = pick(counters(row));
    if (value === undefined) continue;
    seen = true;
    total += value;
  }
  return seen ? total : undefined;
}

function sumRecords(rows: readonly SnapshotRow[], pick: (c: SnapshotCounters) => Record<string, number> | undefined) {
  const out: Record<string, number> = {};
  for (const row of rows) for (const [key, value] of Object.entries(pick(counters(row)) ?? {})) out[key] = (out[key] ?? 0) + value;
  return Object.keys(out).length ? out : undefined;
}

/** Loss, order, reach and login counters that only some scenarios report; absent when none did. */
function scenarioCounters(rows: readonly SnapshotRow[]) {
  const expected = sumOptional(rows, (c) => c.broadcastsExpected);
  const received = sumOptional(rows, (c) => c.broadcastsReceived);
  const fields = {
    lateSends: sumOptional(rows, (c) => c.lateSends),
    skippedSends: sumOptional(rows, (c) => c.skippedSends),
    lost: sumOptional(rows, (c) => c.lost),
    duplicates: sumOptional(rows, (c) => c.duplicates),
    outOfOrder: sumOptional(rows, (c) => c.outOfOrder),
    loginsSucceeded: sumOptional(rows, (c) => c.loginsSucceeded),
    loginsFailed: sumOptional(rows, (c) => c.loginsFailed),
    broadcastReach: expected === undefined ? undefined : expected > 0 ? (received ?? 0) / expected : null,
    errorsByKind: sumRecords(rows, (c) => c.errorsByKind),
    closesByCause: sumRecords(rows, (c) => c.closesByCause),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<SeriesPoint>;
}

/** One second of a run merged across its agents: counters summed, histograms merged. */
export function mergeSecond(second: number, rows: readonly SnapshotRow[]): SeriesPoint {
  const sum = (pick: (c: SnapshotCounters) => number) => rows.reduce((acc, row) => acc + pick(counters(row)), 0);
  // Rates are per second of wall time: an agent's interval may be shorter (the last one), never longer.
  const rate = (pick: (c: SnapshotCounters) => number) =>
    rows.reduce((acc, row) => acc + (pick(counters(row)) * 1000) / Math.max(row.intervalMs, 1000), 0);
  const rtt = latencyPercentiles(mergeEncoded(rows.map((row) => row.rttHist)));
  const latency = otherLatencies(rows);
  const steps = rows.map((row) => row.step).filter((s): s is number => s !== null && s !== undefined);
  const agentHealth: AgentHealthPoint[] = rows.map((row) => ({ agentId: row.agentId, ...AgentHealth.parse(row.health) }));
  return {
    t: second,
    agents: new Set(rows.map((row) => row.agentId)).size,
    clients: rows.reduce((acc, row) => acc + row.clients, 0),
    connections: sum((c) => c.connectionsOpen),
    messagesSentPerSec: rate((c) => c.messagesSent),
    messagesReceivedPerSec: rate((c) => c.messagesReceived),
    bytesSentPerSec: rate((c) => c.bytesSent),
    bytesReceivedPerSec: rate((c) => c.bytesReceived),
    errors: sum((c) => c.errors + c.connectionsFailed),
    rttP50Ms: rtt.p50Ms,
    rttP99Ms: rtt.p99Ms,
    rttMaxMs: rtt.maxMs,
    rttP90Ms: rtt.p90Ms,
    ...(Object.keys(latency).length ? { latency } : {}),
    ...scenarioCounters(rows),
    agentHealth,
    ...(steps.length ? { step: Math.max(...steps) } : {}),
  };
}

/** Groups a run's snapshots by second and merges each second. */
export function buildSeries(rows: readonly SnapshotRow[]): SeriesPoint[] {
  const bySecond = new Map<number, SnapshotRow[]>();
  for (const row of rows) {
    const list = bySecond.get(row.second) ?? [];
    list.push(row);
    bySecond.set(row.second, list);
  }
  return [...bySecond.entries()].sort(([a], [b]) => a - b).map(([second, list]) => mergeSecond(second, list));
}

/** Which agents were the bottleneck, for how many seconds, and the first reason each gave. */
function saturatedAgents(rows: readonly SnapshotRow[]): RunSummary["saturatedAgents"] {
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

/** Totals over the whole run from every stored snapshot; one histogram merge over all of them. */
export function summarize(rows: readonly SnapshotRow[]): RunSummary {
  const series = buildSeries(rows);
  const total = (pick: (c: SnapshotCounters) => number) => rows.reduce((acc, row) => acc + pick(counters(row)), 0);
  const durationMs = rows.length === 0 ? 0 : series.length * 1000;
  const messagesReceived = total((c) => c.messagesReceived);
  const rtt = latencyPercentiles(mergeEncoded(rows.map((row) => row.rttHist)));
  const latency = otherLatencies(rows);
  const saturated = saturatedAgents(rows);
  const { errorsByKind, closesByCause: _closes, ...scenario } = scenarioCounters(rows);
  return {
    agents: new Set(rows.map((row) => row.agentId)).size,
    peakClients: Math.max(0, ...series.map((p) => p.clients)),
    peakConnections: Math.max(0, ...series.map((p) => p.connections)),
    durationSec: durationMs / 1000,
    messagesSent: total((c) => c.messagesSent),
    messagesReceived,
    messagesPerSec: durationMs > 0 ? Math.round((messagesReceived * 1000 * 100) / durationMs) / 100 : 0,
    connectionsFailed: total((c) => c.connectionsFailed),
    connectionsOpened: total((c) => c.connectionsOpened),
    errors: total((c) => c.errors),
    rttP50Ms: rtt.p50Ms,
    rttP99Ms: rtt.p99Ms,
    rttMaxMs: rtt.maxMs,
    rttP90Ms: rtt.p90Ms,
    ...(Object.keys(latency).length ? { latency } : {}),
    ...(scenario as Partial<RunSummary>),
    ...(errorsByKind ? { errorsByKind } : {}),
    ...(saturated?.length ? { saturatedAgents: saturated } : {}),
  };
}
