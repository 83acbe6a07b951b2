// What `throng-agent run` makes of its own seconds: the control plane's merge over them (@throng/wire), so its
// seconds, its summary (the protocol's RunSummary) and each step's verdict are the ones the control plane would
// give the same snapshots; and the few figures only the terminal shows.
import { hostname } from "node:os";
import type { RunSummary } from "@throng/protocol/run";
import { sloCountsOfSummary } from "@throng/protocol/slo-metrics";
import type { MetricSnapshot, SeriesPoint, StoredSnapshot } from "@throng/protocol/snapshot";
import { buildSeries, summariseRun } from "@throng/wire/run-summary";
import { storedSnapshot } from "@throng/wire/snapshot-merge";

/** This agent where the control plane names one (a verdict's reasons, a saturated agent). */
export const LOCAL_AGENT = `on ${hostname()}`;

/** This agent's snapshots as the control plane stores them. */
export function localRecords(snapshots: readonly MetricSnapshot[]): StoredSnapshot[] {
  return snapshots.map((snapshot) => storedSnapshot(LOCAL_AGENT, snapshot));
}

/** The run's merged seconds and its summary (null when no second was measured), as the control plane makes them. */
export function localRun(snapshots: readonly MetricSnapshot[]): { seconds: SeriesPoint[]; summary: RunSummary | null } {
  const records = localRecords(snapshots);
  return { seconds: buildSeries(records), summary: records.length ? summariseRun(records) : null };
}

/** What the terminal's summary shows beyond the shared one: bytes, closes by cause, and this agent's own health. */
export interface LocalFigures {
  connectionsClosed: number;
  closesByCause: Record<string, number>;
  bytesSent: number;
  bytesReceived: number;
  maxCpuPercent: number;
  maxRssBytes: number;
  saturatedSeconds: number;
}

export function localFigures(snapshots: readonly MetricSnapshot[]): LocalFigures {
  const figures: LocalFigures = {
    connectionsClosed: 0,
    closesByCause: {},
    bytesSent: 0,
    bytesReceived: 0,
    maxCpuPercent: 0,
    maxRssBytes: 0,
    saturatedSeconds: 0,
  };
  for (const { counters, health } of snapshots) {
    figures.connectionsClosed += counters.connectionsClosed;
    figures.bytesSent += counters.bytesSent;
    figures.bytesReceived += counters.bytesReceived;
    for (const [cause, n] of Object.entries(counters.closesByCause ?? {}))
      figures.closesByCause[cause] = (figures.closesByCause[cause] ?? 0) + n;
    figures.maxCpuPercent = Math.max(figures.maxCpuPercent, health.cpuPercent);
    figures.maxRssBytes = Math.max(figures.maxRssBytes, health.rssBytes);
    if (health.saturated) figures.saturatedSeconds += 1;
  }
  return figures;
}

/** One step of a step-up run: its client count and what the server did at that load (the terminal's step table). */
export interface StepSummary {
  step: number;
  clients: number;
  seconds: number;
  receivedPerSec: number;
  rttP99Ms: number | null;
  correctedP99Ms: number | null;
  errorRate: number;
  agentSaturatedSeconds: number;
}

/** Per-step figures of a step-up run, from snapshots tagged with `step`, each step summarised as a run is. */
export function summariseSteps(snapshots: readonly MetricSnapshot[]): StepSummary[] {
  const bySteps = new Map<number, MetricSnapshot[]>();
  for (const snapshot of snapshots) {
    if (snapshot.step === undefined) continue;
    bySteps.set(snapshot.step, [...(bySteps.get(snapshot.step) ?? []), snapshot]);
  }
  return [...bySteps.entries()].map(([step, list]) => {
    const summary = summariseRun(localRecords(list));
    return {
      step,
      clients: summary.peakClients,
      seconds: list.length,
      receivedPerSec: Math.round(summary.messagesPerSec),
      rttP99Ms: summary.rttP99Ms,
      correctedP99Ms: summary.latency?.rttCorrected?.p99Ms ?? null,
      errorRate: sloCountsOfSummary(summary).errorRate ?? 0,
      agentSaturatedSeconds: list.filter((s) => s.health.saturated).length,
    };
  });
}
