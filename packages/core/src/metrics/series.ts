import { SnapshotCounters, type SeriesPoint } from "@throng/protocol/snapshot";
import type { RunSummary } from "@throng/protocol/run";
import type { SnapshotRow } from "@throng/db/repos/snapshots";
import { latencyPercentiles, mergeEncoded } from "./histogram";

function counters(row: SnapshotRow): SnapshotCounters {
  return SnapshotCounters.parse(row.counters);
}

/** One second of a run merged across its agents: counters summed, histograms merged. */
export function mergeSecond(second: number, rows: readonly SnapshotRow[]): SeriesPoint {
  const sum = (pick: (c: SnapshotCounters) => number) => rows.reduce((acc, row) => acc + pick(counters(row)), 0);
  // Rates are per second of wall time: an agent's interval may be shorter (the last one), never longer.
  const rate = (pick: (c: SnapshotCounters) => number) =>
    rows.reduce((acc, row) => acc + (pick(counters(row)) * 1000) / Math.max(row.intervalMs, 1000), 0);
  const rtt = latencyPercentiles(mergeEncoded(rows.map((row) => row.rttHist)));
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

/** Totals over the whole run from every stored snapshot; one histogram merge over all of them. */
export function summarize(rows: readonly SnapshotRow[]): RunSummary {
  const series = buildSeries(rows);
  const total = (pick: (c: SnapshotCounters) => number) => rows.reduce((acc, row) => acc + pick(counters(row)), 0);
  const durationMs = rows.length === 0 ? 0 : series.length * 1000;
  const messagesReceived = total((c) => c.messagesReceived);
  const rtt = latencyPercentiles(mergeEncoded(rows.map((row) => row.rttHist)));
  return {
    agents: new Set(rows.map((row) => row.agentId)).size,
    peakClients: Math.max(0, ...series.map((p) => p.clients)),
    peakConnections: Math.max(0, ...series.map((p) => p.connections)),
    durationSec: durationMs / 1000,
    messagesSent: total((c) => c.messagesSent),
    messagesReceived,
    messagesPerSec: durationMs > 0 ? Math.round((messagesReceived * 1000 * 100) / durationMs) / 100 : 0,
    connectionsFailed: total((c) => c.connectionsFailed),
    errors: total((c) => c.errors),
    rttP50Ms: rtt.p50Ms,
    rttP99Ms: rtt.p99Ms,
    rttMaxMs: rtt.maxMs,
  };
}
