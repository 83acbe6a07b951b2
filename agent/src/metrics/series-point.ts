// The standalone agent's seconds and totals in the shapes the shared verdict (@throng/protocol/run-verdict) reads,
// so `throng-agent run` judges a run exactly as the control plane does.
import type { CohortSummary, RunSummary as ProtocolSummary } from "@throng/protocol/run";
import type { CohortPoint, LatencyName, LatencyStats, MetricSnapshot, SeriesPoint, SnapshotHistograms } from "@throng/protocol/snapshot";
import type { Histogram } from "hdr-histogram-js";
import { decodeHistogram } from "./histogram";
import { cohortSeconds, runCohorts, summariseRun, type LatencySummary, type RunSummary } from "./run-summary";

const OTHER_LATENCIES: [Exclude<keyof SnapshotHistograms, "script">, LatencyName][] = [
  ["rttCorrectedUs", "rttCorrected"], ["connectUs", "connect"], ["loginUs", "login"], ["broadcastUs", "broadcast"], ["jitterUs", "jitter"],
];

const ms = (us: number) => Math.round(us) / 1000;

function stats(histogram: Histogram): LatencyStats {
  if (histogram.totalCount === 0) return { count: 0, p50Ms: null, p90Ms: null, p99Ms: null, maxMs: null };
  const at = (p: number) => ms(histogram.getValueAtPercentile(p));
  return { count: histogram.totalCount, p50Ms: at(50), p90Ms: at(90), p99Ms: at(99), maxMs: ms(histogram.maxValue) };
}

const fromSummary = (s: LatencySummary): LatencyStats => ({ count: s.count, p50Ms: s.p50Ms, p90Ms: null, p99Ms: s.p99Ms, maxMs: s.maxMs });

/** A script's named histograms and counters as the series and summary carry them; absent when there are none. */
function scriptFigures(script: Record<string, LatencyStats>, scriptCounts: Record<string, number> | undefined): Pick<SeriesPoint, "script" | "scriptCounts"> {
  return { ...(Object.keys(script).length ? { script } : {}), ...(scriptCounts && Object.keys(scriptCounts).length ? { scriptCounts } : {}) };
}

/** One second (its engines' snapshots already merged) as a series point, each network cohort's second read the same way. */
export function pointOfSnapshot(snapshot: MetricSnapshot): SeriesPoint {
  const cohorts = Object.entries(snapshot.cohorts ?? {}).map(([name, part]): [string, CohortPoint] => [name, { ...pointOfSecond(cohortSeconds([snapshot], name)[0]!), applied: part.applied }]);
  return { ...pointOfSecond(snapshot), ...(cohorts.length ? { cohorts: Object.fromEntries(cohorts) } : {}) };
}

function pointOfSecond(snapshot: MetricSnapshot): SeriesPoint {
  const { counters: c, histograms: h } = snapshot;
  const perSec = 1000 / snapshot.intervalMs;
  const rtt = stats(decodeHistogram(h.rttUs));
  const latency: Partial<Record<LatencyName, LatencyStats>> = {};
  for (const [key, name] of OTHER_LATENCIES) if (h[key]) latency[name] = stats(decodeHistogram(h[key]!));
  const optional = <K extends keyof SeriesPoint>(key: K, value: SeriesPoint[K] | undefined) => (value === undefined ? {} : { [key]: value });
  return {
    t: Math.floor(snapshot.intervalStart / 1000), agents: 1, clients: snapshot.clients, connections: c.connectionsOpen,
    messagesSentPerSec: c.messagesSent * perSec, messagesReceivedPerSec: c.messagesReceived * perSec,
    bytesSentPerSec: c.bytesSent * perSec, bytesReceivedPerSec: c.bytesReceived * perSec, errors: c.errors,
    rttP50Ms: rtt.p50Ms, rttP99Ms: rtt.p99Ms, rttMaxMs: rtt.maxMs,
    ...(Object.keys(latency).length ? { latency } : {}),
    ...optional("scheduledSends", c.scheduledSends), ...optional("skippedSends", c.skippedSends), ...optional("lost", c.lost),
    ...optional("loginsSucceeded", c.loginsSucceeded), ...optional("loginsFailed", c.loginsFailed), ...optional("errorsByKind", c.errorsByKind),
    ...(c.broadcastsExpected ? { broadcastReach: (c.broadcastsReceived ?? 0) / c.broadcastsExpected } : {}),
    ...scriptFigures(Object.fromEntries(Object.entries(h.script ?? {}).map(([name, encoded]) => [name, stats(decodeHistogram(encoded))])), c.scriptCounts),
  };
}

/** The whole standalone run in the control plane's summary shape (one agent), each network cohort's totals beside it. */
export function protocolSummary(summary: RunSummary, snapshots: readonly MetricSnapshot[]): ProtocolSummary {
  const cohorts = [...runCohorts(snapshots)].map(([name, applied]): [string, CohortSummary] => {
    const seconds = cohortSeconds(snapshots, name);
    return [name, { ...totalsOf(summariseRun(seconds), seconds), applied }];
  });
  return { ...totalsOf(summary, snapshots), ...(cohorts.length ? { cohorts: Object.fromEntries(cohorts) } : {}) };
}

function totalsOf(summary: RunSummary, snapshots: readonly MetricSnapshot[]): ProtocolSummary {
  const c = summary.counters;
  const rtt = summary.latency.rttUs;
  const latency: Partial<Record<LatencyName, LatencyStats>> = {};
  for (const [key, name] of OTHER_LATENCIES) if (summary.latency[key]) latency[name] = fromSummary(summary.latency[key]!);
  const expected = c.broadcastsExpected;
  return {
    agents: 1, peakClients: summary.peakClients, peakConnections: Math.max(0, ...snapshots.map((s) => s.counters.connectionsOpen)),
    durationSec: summary.seconds, messagesSent: c.messagesSent ?? 0, messagesReceived: c.messagesReceived ?? 0,
    messagesPerSec: summary.seconds ? (c.messagesReceived ?? 0) / summary.seconds : 0,
    connectionsFailed: c.connectionsFailed ?? 0, connectionsOpened: c.connectionsOpened ?? 0, errors: c.errors ?? 0,
    rttP50Ms: rtt?.p50Ms ?? null, rttP99Ms: rtt?.p99Ms ?? null, rttMaxMs: rtt?.maxMs ?? null, roundTrips: rtt?.count ?? 0,
    ...(Object.keys(latency).length ? { latency } : {}),
    ...(c.lost !== undefined ? { lost: c.lost } : {}),
    ...(c.loginsSucceeded !== undefined ? { loginsSucceeded: c.loginsSucceeded } : {}),
    ...(c.loginsFailed !== undefined ? { loginsFailed: c.loginsFailed } : {}),
    ...(Object.keys(summary.errorsByKind).length ? { errorsByKind: summary.errorsByKind } : {}),
    ...(c.skippedSends !== undefined ? { skippedSends: c.skippedSends } : {}),
    ...(c.scheduledSends !== undefined ? { scheduledSends: c.scheduledSends } : {}),
    ...(c.inFlightAtEnd !== undefined ? { inFlightAtEnd: c.inFlightAtEnd } : {}),
    ...(expected ? { broadcastReach: (c.broadcastsReceived ?? 0) / expected } : {}),
    ...scriptFigures(Object.fromEntries(Object.entries(summary.script).map(([name, s]) => [name, fromSummary(s)])), summary.scriptCounts),
  };
}
