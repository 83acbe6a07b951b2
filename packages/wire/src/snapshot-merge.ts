// Agents' per-second snapshots merged: counters summed, histograms merged (never percentiles averaged). The one
// merge behind the control plane's seconds and summaries (core's ingest and judgement) and `throng-agent run`'s.
import {
  AgentHealth,
  KCP_COUNTER_NAMES,
  LatencyName,
  MetricSnapshot,
  NETWORK_COUNTER_NAMES,
  SnapshotCounters,
  SnapshotHistograms,
  worstNetworkPath,
  type SessionStepFailure,
  type SessionStepStats,
  type AgentHealthPoint,
  type CohortPoint,
  type CohortSnapshot,
  type NetworkPath,
  type SeriesPoint,
  type StoredSnapshot,
} from "@throng/protocol/snapshot";
import { EncodedMerge, type LatencyPercentiles } from "./snapshot-histogram";

/** A snapshot as `agentId` sent it, in the stored shape (its cohorts' figures too, when it has any). */
export function storedSnapshot(agentId: string, snapshot: MetricSnapshot): StoredSnapshot {
  return {
    agentId,
    seq: snapshot.seq,
    second: Math.floor(snapshot.intervalStart / 1000),
    intervalMs: snapshot.intervalMs,
    clients: snapshot.clients,
    counters: snapshot.counters,
    rttHist: snapshot.histograms.rttUs,
    health: snapshot.health,
    step: snapshot.step ?? null,
    histograms: Object.fromEntries(
      Object.entries(snapshot.histograms).filter(([name, value]) => name !== "rttUs" && value),
    ) as Record<string, string>,
    ...(snapshot.cohorts ? { cohorts: snapshot.cohorts } : {}),
  };
}

/** Snapshot histogram field for each series latency name. */
const HISTOGRAM_FIELD: Record<LatencyName, string> = {
  rttCorrected: "rttCorrectedUs",
  connect: "connectUs",
  login: "loginUs",
  broadcast: "broadcastUs",
  jitter: "jitterUs",
};

/** Counters only some scenarios report: summed over the rows that have them, absent when none did. */
const OPTIONAL_COUNTERS = [
  "lateSends",
  "skippedSends",
  "scheduledSends",
  "inFlightAtEnd",
  "lost",
  "duplicates",
  "outOfOrder",
  "loginsSucceeded",
  "loginsFailed",
  "broadcastsExpected",
  "broadcastsReceived",
  ...KCP_COUNTER_NAMES,
  ...NETWORK_COUNTER_NAMES,
] as const;
type OptionalCounter = (typeof OPTIONAL_COUNTERS)[number];
const RATE_COUNTERS = ["messagesSent", "messagesReceived", "bytesSent", "bytesReceived"] as const;

/** Adds an encoded histogram into `name`'s merge, starting one on the first. */
function addNamed<K>(merges: Map<K, EncodedMerge>, name: K, encoded: string): void {
  let merged = merges.get(name);
  if (!merged) {
    merged = new EncodedMerge();
    merges.set(name, merged);
  }
  merged.add(encoded);
}

function addRecord(into: Record<string, number>, from: Record<string, number> | undefined) {
  for (const [key, value] of Object.entries(from ?? {})) into[key] = (into[key] ?? 0) + value;
}

/** A stored snapshot's cohort figures, validated; undefined without cohorts. */
function cohortsOf(row: StoredSnapshot): Record<string, CohortSnapshot> | undefined {
  return row.cohorts ? MetricSnapshot.shape.cohorts.parse(row.cohorts) : undefined;
}

/** One cohort's part of a stored snapshot as a row of its own, so it merges and summarises exactly as a snapshot does. */
function cohortRow(row: StoredSnapshot, part: CohortSnapshot): StoredSnapshot {
  const { rttUs, ...histograms } = part.histograms;
  return {
    ...row,
    clients: part.clients,
    counters: part.counters,
    rttHist: rttUs,
    histograms: histograms as Record<string, string>,
    cohorts: null,
  };
}

/** Each cohort's rows of `rows`, by cohort name, with how each was applied (the least faithful any agent used). */
export function cohortRows(
  rows: readonly StoredSnapshot[],
): Map<string, { rows: StoredSnapshot[]; applied: NetworkPath }> {
  const out = new Map<string, { rows: StoredSnapshot[]; applied: NetworkPath }>();
  for (const row of rows) {
    for (const [name, part] of Object.entries(cohortsOf(row) ?? {})) {
      const entry = out.get(name);
      if (entry) {
        entry.rows.push(cohortRow(row, part));
        entry.applied = worstNetworkPath([entry.applied, part.applied])!;
      } else out.set(name, { rows: [cohortRow(row, part)], applied: part.applied });
    }
  }
  return out;
}

/**
 * Snapshots merged as they come: counters summed, histograms merged (never percentiles averaged). Each row is
 * validated and its histograms decoded once, when added, so merging n snapshots costs n decodes however often
 * the merged figures are read: ingest keeps one of these per open second, the roll-up rebuild one per second.
 */
export function createMerge(options: { health?: boolean } = {}) {
  const keepHealth = options.health ?? true;
  const agents = new Set<string>();
  // Each network cohort's figures, merged as the run's are (a merge of its own per cohort).
  const cohorts = new Map<string, { merge: Merge; applied: NetworkPath }>();
  const health: AgentHealthPoint[] = [];
  const rtt = new EncodedMerge();
  const latency = new Map<LatencyName, EncodedMerge>();
  const script = new Map<string, EncodedMerge>();
  const scriptCounts: Record<string, number> = {};
  // A session's steps: each one's time merged and its failures summed, by step index.
  const stepTimes = new Map<string, EncodedMerge>();
  const stepFailures: Record<string, Partial<Record<SessionStepFailure, number>>> = {};
  const optional: Partial<Record<OptionalCounter, number>> = {};
  const rates = { messagesSent: 0, messagesReceived: 0, bytesSent: 0, bytesReceived: 0 };
  const errorsByKind: Record<string, number> = {};
  const closesByCause: Record<string, number> = {};
  const reconnectsByCause: Record<string, number> = {};
  const totals = {
    rows: 0,
    clients: 0,
    connections: 0,
    errors: 0,
    messagesSent: 0,
    messagesReceived: 0,
    connectionsFailed: 0,
    connectionsOpened: 0,
    countedErrors: 0,
  };
  let step: number | undefined;

  return {
    add(row: StoredSnapshot): void {
      const counters = SnapshotCounters.parse(row.counters);
      totals.rows += 1;
      agents.add(row.agentId);
      if (keepHealth) health.push({ agentId: row.agentId, ...AgentHealth.parse(row.health) });
      for (const [name, part] of Object.entries(cohortsOf(row) ?? {})) {
        let cohort = cohorts.get(name);
        if (!cohort) {
          cohort = { merge: createMerge({ health: false }), applied: part.applied };
          cohorts.set(name, cohort);
        }
        cohort.applied = worstNetworkPath([cohort.applied, part.applied])!;
        cohort.merge.add(cohortRow(row, part));
      }
      totals.clients += row.clients;
      totals.connections += counters.connectionsOpen;
      totals.errors += counters.errors + counters.connectionsFailed;
      totals.countedErrors += counters.errors;
      totals.messagesSent += counters.messagesSent;
      totals.messagesReceived += counters.messagesReceived;
      totals.connectionsFailed += counters.connectionsFailed;
      totals.connectionsOpened += counters.connectionsOpened;
      // Rates are per second of wall time: an agent's interval may be shorter (the last one), never longer.
      for (const name of RATE_COUNTERS) rates[name] += (counters[name] * 1000) / Math.max(row.intervalMs, 1000);
      for (const name of OPTIONAL_COUNTERS)
        if (counters[name] !== undefined) optional[name] = (optional[name] ?? 0) + counters[name];
      addRecord(errorsByKind, counters.errorsByKind);
      addRecord(closesByCause, counters.closesByCause);
      addRecord(reconnectsByCause, counters.reconnectsByCause);
      addRecord(scriptCounts, counters.scriptCounts);
      rtt.add(row.rttHist);
      for (const name of LatencyName.options) {
        const encoded = row.histograms?.[HISTOGRAM_FIELD[name]];
        if (encoded) addNamed(latency, name, encoded);
      }
      // Ingest stores a snapshot's histograms as they came: a script's are an object under "script".
      const named = SnapshotHistograms.shape.script.parse(
        (row.histograms as Record<string, unknown> | undefined)?.script,
      );
      for (const [name, encoded] of Object.entries(named ?? {})) addNamed(script, name, encoded);
      const steps = SnapshotHistograms.shape.sessionSteps.parse(
        (row.histograms as Record<string, unknown> | undefined)?.sessionSteps,
      );
      for (const [step, encoded] of Object.entries(steps ?? {})) addNamed(stepTimes, step, encoded);
      for (const [step, causes] of Object.entries(counters.sessionStepFailures ?? {})) {
        const summed = stepFailures[step] ?? {};
        stepFailures[step] = summed;
        addRecord(summed, causes as Record<string, number>);
      }
      if (row.step !== null && row.step !== undefined) step = Math.max(step ?? row.step, row.step);
    },
    /** Snapshots added so far. */
    get count() {
      return totals.rows;
    },
    totals: () => ({ ...totals, agents: agents.size }),
    /** Each added row's agent health, in the order added (append-only: ingest publishes what is new). */
    health: (): readonly AgentHealthPoint[] => health,
    rtt: () => rtt.percentiles(),
    /** Every latency beyond RTT that any of the rows measured. */
    latency(): Partial<Record<LatencyName, LatencyPercentiles>> {
      return Object.fromEntries([...latency.entries()].map(([name, histogram]) => [name, histogram.percentiles()]));
    },
    /** A script's named histograms, merged across the rows, by name. */
    script(): Record<string, LatencyPercentiles> {
      return Object.fromEntries([...script.entries()].map(([name, histogram]) => [name, histogram.percentiles()]));
    },
    /** Each session step that any row timed or failed, by step index: its merged time and failures by cause. */
    sessionSteps(): Record<string, SessionStepStats> {
      const steps = new Set([...stepTimes.keys(), ...Object.keys(stepFailures)]);
      return Object.fromEntries(
        [...steps].map((step) => [
          step,
          { ...(stepTimes.get(step) ?? new EncodedMerge()).percentiles(), failures: { ...stepFailures[step] } },
        ]),
      );
    },
    /** Loss, order, reach, login and script counters that only some scenarios report; absent when none did. */
    scenario(): Partial<SeriesPoint> {
      const { broadcastsExpected: expected, broadcastsReceived: received, ...sums } = optional;
      const fields = {
        lateSends: sums.lateSends,
        skippedSends: sums.skippedSends,
        scheduledSends: sums.scheduledSends,
        inFlightAtEnd: sums.inFlightAtEnd,
        lost: sums.lost,
        duplicates: sums.duplicates,
        outOfOrder: sums.outOfOrder,
        loginsSucceeded: sums.loginsSucceeded,
        loginsFailed: sums.loginsFailed,
        ...Object.fromEntries([...KCP_COUNTER_NAMES, ...NETWORK_COUNTER_NAMES].map((name) => [name, sums[name]])),
        broadcastReach: expected === undefined ? undefined : expected > 0 ? (received ?? 0) / expected : null,
        errorsByKind: Object.keys(errorsByKind).length ? { ...errorsByKind } : undefined,
        closesByCause: Object.keys(closesByCause).length ? { ...closesByCause } : undefined,
        reconnectsByCause: Object.keys(reconnectsByCause).length ? { ...reconnectsByCause } : undefined,
        scriptCounts: Object.keys(scriptCounts).length ? { ...scriptCounts } : undefined,
      };
      return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<SeriesPoint>;
    },
    /** The merged point of `second` (when every added row belongs to it), without the agents' health (`health()`). */
    point(second: number): SeriesPoint {
      const percentiles = rtt.percentiles();
      const other = this.latency();
      return {
        t: second,
        agents: agents.size,
        clients: totals.clients,
        connections: totals.connections,
        messagesSentPerSec: rates.messagesSent,
        messagesReceivedPerSec: rates.messagesReceived,
        bytesSentPerSec: rates.bytesSent,
        bytesReceivedPerSec: rates.bytesReceived,
        errors: totals.errors,
        rttP50Ms: percentiles.p50Ms,
        rttP99Ms: percentiles.p99Ms,
        rttMaxMs: percentiles.maxMs,
        rttP90Ms: percentiles.p90Ms,
        ...(Object.keys(other).length ? { latency: other } : {}),
        ...(script.size ? { script: this.script() } : {}),
        ...this.scenario(),
        ...(step !== undefined ? { step } : {}),
        ...(cohorts.size ? { cohorts: this.cohortPoints(second) } : {}),
      };
    },
    /** Each cohort's merged second, read as the run's point is. */
    cohortPoints(second: number): Record<string, CohortPoint> {
      return Object.fromEntries(
        [...cohorts].map(([name, { merge, applied }]) => {
          const { step: _, cohorts: __, ...point } = merge.point(second);
          return [name, { ...point, applied }];
        }),
      );
    },
  };
}
export type Merge = ReturnType<typeof createMerge>;

/** All `rows` in one merge. */
export function mergeRows(rows: readonly StoredSnapshot[]): Merge {
  const merge = createMerge();
  for (const row of rows) merge.add(row);
  return merge;
}
