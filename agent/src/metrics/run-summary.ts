import type { Slo } from "@throng/protocol/plan";
import { scriptSloMetric } from "@throng/protocol/slo-judge";
import { worstNetworkPath, type MetricSnapshot, type NetworkPath, type SnapshotHistograms } from "@throng/protocol/snapshot";
import type { Histogram } from "hdr-histogram-js";
import { decodeHistogram } from "./histogram";

/** Percentiles in milliseconds, or null when nothing was recorded. */
export interface LatencySummary {
  count: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

/** A whole run, from its per-second snapshots: what the final summary prints and the SLOs are checked against. */
export interface RunSummary {
  seconds: number;
  peakClients: number;
  counters: Record<string, number>;
  errorsByKind: Record<string, number>;
  closesByCause: Record<string, number>;
  /** Reconnect attempts by the cause of the drop (a plan's `reconnect` policy); empty when nobody reconnected. */
  reconnectsByCause: Record<string, number>;
  latency: Partial<Record<keyof SnapshotHistograms, LatencySummary>>;
  /** A script's named histograms merged over the run, and its counters' totals, by name (empty without a script). */
  script: Record<string, LatencySummary>;
  scriptCounts: Record<string, number>;
  errorRate: number;
  lossRate: number | null;
  reach: number | null;
  maxCpuPercent: number;
  maxRssBytes: number;
  saturatedSeconds: number;
}

function summarise(histogram: Histogram | undefined): LatencySummary {
  if (!histogram || histogram.totalCount === 0) return { count: 0, p50Ms: null, p99Ms: null, maxMs: null };
  const ms = (us: number) => Math.round(us) / 1000;
  return { count: histogram.totalCount, p50Ms: ms(histogram.getValueAtPercentile(50)), p99Ms: ms(histogram.getValueAtPercentile(99)), maxMs: ms(histogram.maxValue) };
}

function addCounts(into: Record<string, number>, from: Record<string, number> | undefined): void {
  for (const [key, n] of Object.entries(from ?? {})) into[key] = (into[key] ?? 0) + n;
}

/** Adds up per-second snapshots: counters summed, histograms merged (never percentiles averaged). */
export function summariseRun(snapshots: MetricSnapshot[]): RunSummary {
  const counters: Record<string, number> = {};
  const errorsByKind: Record<string, number> = {};
  const closesByCause: Record<string, number> = {};
  const reconnectsByCause: Record<string, number> = {};
  const histograms = new Map<keyof SnapshotHistograms, Histogram>();
  const scriptHistograms = new Map<string, Histogram>();
  const scriptCounts: Record<string, number> = {};
  const merge = <K>(into: Map<K, Histogram>, name: K, encoded: string) => {
    const decoded = decodeHistogram(encoded);
    const existing = into.get(name);
    if (existing) existing.add(decoded);
    else into.set(name, decoded);
  };
  for (const snapshot of snapshots) {
    for (const [key, value] of Object.entries(snapshot.counters)) {
      if (typeof value === "number" && key !== "connectionsOpen") counters[key] = (counters[key] ?? 0) + value;
    }
    addCounts(errorsByKind, snapshot.counters.errorsByKind);
    addCounts(closesByCause, snapshot.counters.closesByCause);
    addCounts(reconnectsByCause, snapshot.counters.reconnectsByCause);
    for (const [name, encoded] of Object.entries(snapshot.histograms) as [keyof SnapshotHistograms, string][]) {
      if (name !== "script") merge(histograms, name, encoded);
    }
    for (const [name, encoded] of Object.entries(snapshot.histograms.script ?? {})) merge(scriptHistograms, name, encoded);
    addCounts(scriptCounts, snapshot.counters.scriptCounts);
  }
  const latency: RunSummary["latency"] = {};
  for (const [name, histogram] of histograms) latency[name] = summarise(histogram);
  const attempts = (counters.messagesSent ?? 0) + (counters.connectionsOpened ?? 0) + (counters.connectionsFailed ?? 0);
  const failures = (counters.errors ?? 0) + (counters.connectionsFailed ?? 0);
  const expected = counters.broadcastsExpected;
  return {
    seconds: snapshots.length,
    peakClients: Math.max(0, ...snapshots.map((s) => s.clients)),
    counters,
    errorsByKind,
    closesByCause,
    reconnectsByCause,
    latency,
    script: Object.fromEntries([...scriptHistograms].map(([name, histogram]) => [name, summarise(histogram)])),
    scriptCounts,
    errorRate: attempts > 0 ? failures / attempts : 0,
    lossRate: expected ? (counters.lost ?? 0) / expected : counters.lost !== undefined && counters.messagesSent ? counters.lost / counters.messagesSent : null,
    reach: expected ? (counters.broadcastsReceived ?? 0) / expected : null,
    maxCpuPercent: Math.max(0, ...snapshots.map((s) => s.health.cpuPercent)),
    maxRssBytes: Math.max(0, ...snapshots.map((s) => s.health.rssBytes)),
    saturatedSeconds: snapshots.filter((s) => s.health.saturated).length,
  };
}

/**
 * One cohort's seconds as snapshots of their own (its clients, counters and histograms in the snapshot's place), so
 * everything that reads a run's snapshots reads a cohort's the same way; seconds without the cohort are left out.
 */
export function cohortSeconds(snapshots: readonly MetricSnapshot[], name: string): MetricSnapshot[] {
  return snapshots.flatMap((snapshot) => {
    const part = snapshot.cohorts?.[name];
    if (!part) return [];
    const { cohorts: _, ...rest } = snapshot;
    return [{ ...rest, clients: part.clients, counters: part.counters, histograms: part.histograms }];
  });
}

/** The cohorts a run's snapshots carry, by name, with how each was applied (the least faithful seen). */
export function runCohorts(snapshots: readonly MetricSnapshot[]): Map<string, NetworkPath> {
  const cohorts = new Map<string, NetworkPath>();
  for (const snapshot of snapshots) {
    for (const [name, part] of Object.entries(snapshot.cohorts ?? {})) cohorts.set(name, worstNetworkPath([part.applied, ...(cohorts.has(name) ? [cohorts.get(name)!] : [])])!);
  }
  return cohorts;
}

export interface SloResult {
  slo: Slo;
  /** null when the run produced nothing to measure it by: that counts as a failure. */
  measured: number | null;
  passed: boolean;
}

function measure(summary: RunSummary, metric: Slo["metric"]): number | null {
  const script = scriptSloMetric(metric);
  if (script?.stat === "count") return summary.scriptCounts[script.name] ?? null;
  if (script) {
    // A histogram without samples is no data.
    const stats = summary.script[script.name];
    return stats && stats.count > 0 ? (script.stat === "p50" ? stats.p50Ms : stats.p99Ms) : null;
  }
  switch (metric) {
    case "rtt-p50-ms":
      return summary.latency.rttUs?.p50Ms ?? null;
    case "rtt-p99-ms":
      return summary.latency.rttUs?.p99Ms ?? null;
    case "rtt-corrected-p99-ms":
      return summary.latency.rttCorrectedUs?.p99Ms ?? null;
    case "broadcast-p99-ms":
      return summary.latency.broadcastUs?.p99Ms ?? null;
    case "connect-p99-ms":
      return summary.latency.connectUs?.p99Ms ?? null;
    case "login-p99-ms":
      return summary.latency.loginUs?.p99Ms ?? null;
    case "error-rate": {
      // An error rate over nothing attempted is no data, not 0.
      const c = summary.counters;
      return (c.messagesSent ?? 0) + (c.connectionsOpened ?? 0) + (c.connectionsFailed ?? 0) > 0 ? summary.errorRate : null;
    }
    case "loss-rate":
      // Nothing expected to arrive is no data, never a loss of 0 (a run whose clients were all dropped is not a pass).
      return summary.lossRate;
    default:
      return null;
  }
}

/**
 * Checks each SLO against `seconds` (a network cohort's SLO against its clients' figures only, cohortSeconds); a
 * metric with no data fails.
 */
export function checkSlosOver(seconds: MetricSnapshot[], slos: Slo[]): SloResult[] {
  const whole = summariseRun(seconds);
  return slos.map((slo) => checkSlos(slo.cohort === undefined ? whole : summariseRun(cohortSeconds(seconds, slo.cohort)), [slo])[0]!);
}

/** Checks each SLO against the whole run; a metric with no data fails (an SLO nobody could measure is not met). */
export function checkSlos(summary: RunSummary, slos: Slo[]): SloResult[] {
  return slos.map((slo) => {
    const measured = measure(summary, slo.metric);
    return { slo, measured, passed: measured !== null && measured < slo.below };
  });
}

/** One step of a step-up run: its client count and what the server did at that load. */
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

/** Per-step figures of a step-up run (what a capacity search reads), from snapshots tagged with `step`. */
export function summariseSteps(snapshots: MetricSnapshot[]): StepSummary[] {
  const bySteps = new Map<number, MetricSnapshot[]>();
  for (const snapshot of snapshots) {
    if (snapshot.step === undefined) continue;
    bySteps.set(snapshot.step, [...(bySteps.get(snapshot.step) ?? []), snapshot]);
  }
  return [...bySteps.entries()].map(([step, list]) => {
    const summary = summariseRun(list);
    const ms = list.reduce((sum, s) => sum + s.intervalMs, 0);
    return {
      step,
      clients: summary.peakClients,
      seconds: list.length,
      receivedPerSec: Math.round(((summary.counters.messagesReceived ?? 0) * 1000) / Math.max(1, ms)),
      rttP99Ms: summary.latency.rttUs?.p99Ms ?? null,
      correctedP99Ms: summary.latency.rttCorrectedUs?.p99Ms ?? null,
      errorRate: summary.errorRate,
      agentSaturatedSeconds: summary.saturatedSeconds,
    };
  });
}
