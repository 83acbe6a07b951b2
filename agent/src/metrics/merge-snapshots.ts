import {
  worstNetworkPath,
  type AgentHealth,
  type CohortSnapshot,
  type MetricSnapshot,
  type SessionStepFailures,
  type SnapshotCounters,
  type SnapshotHistograms,
} from "@throng/protocol/snapshot";
import { mergeRoomsReports, type RoomsReport } from "@throng/protocol/rooms";
import { decodeHistogram, encodeHistogram } from "./histogram";

function sumRecords(records: (Record<string, number> | undefined)[]): Record<string, number> | undefined {
  if (records.every((record) => record === undefined)) return undefined;
  const out: Record<string, number> = {};
  for (const record of records)
    for (const [key, value] of Object.entries(record ?? {})) out[key] = (out[key] ?? 0) + value;
  return out;
}

function mergeCounters(all: SnapshotCounters[]): SnapshotCounters {
  const out: Record<string, unknown> = {};
  for (const counters of all) {
    for (const [key, value] of Object.entries(counters)) {
      if (typeof value === "number") out[key] = ((out[key] as number | undefined) ?? 0) + value;
    }
  }
  const errorsByKind = sumRecords(all.map((c) => c.errorsByKind));
  const closesByCause = sumRecords(all.map((c) => c.closesByCause));
  const reconnectsByCause = sumRecords(all.map((c) => c.reconnectsByCause));
  const scriptCounts = sumRecords(all.map((c) => c.scriptCounts));
  const sessionStepFailures = mergeStepFailures(all.map((c) => c.sessionStepFailures));
  return {
    ...(out as SnapshotCounters),
    ...(errorsByKind ? { errorsByKind } : {}),
    ...(closesByCause ? { closesByCause } : {}),
    ...(reconnectsByCause ? { reconnectsByCause } : {}),
    ...(scriptCounts ? { scriptCounts } : {}),
    ...(sessionStepFailures ? { sessionStepFailures } : {}),
  };
}

/** Each session step's failures summed, cause by cause. */
function mergeStepFailures(all: (SessionStepFailures | undefined)[]): SessionStepFailures | undefined {
  const steps = [...new Set(all.flatMap((failures) => Object.keys(failures ?? {})))];
  if (!steps.length) return undefined;
  return Object.fromEntries(steps.map((step) => [step, sumRecords(all.map((failures) => failures?.[step]))!]));
}

/** Each name's histograms merged into one. */
function mergeByName(all: Record<string, string | undefined>[]): Record<string, string> {
  const names = new Set(all.flatMap((h) => Object.keys(h)));
  const out: Record<string, string> = {};
  for (const name of names) {
    const encoded = all.map((h) => h[name]).filter((h): h is string => h !== undefined);
    const [first, ...rest] = encoded.map((h) => decodeHistogram(h));
    for (const histogram of rest) first!.add(histogram);
    out[name] = encodeHistogram(first!);
  }
  return out;
}

function mergeHistograms(all: SnapshotHistograms[]): SnapshotHistograms {
  // A script's named histograms, and a session's steps, are merged name by name (step by step), like the others.
  const scripts = all.flatMap((h) => (h.script ? [h.script] : []));
  const steps = all.flatMap((h) => (h.sessionSteps ? [h.sessionSteps] : []));
  const merged = mergeByName(
    all.map(({ script: _, sessionSteps: __, ...latencies }) => latencies),
  ) as unknown as SnapshotHistograms;
  if (scripts.length) merged.script = mergeByName(scripts);
  if (steps.length) merged.sessionSteps = mergeByName(steps);
  return merged;
}

/**
 * CPU and memory add up across engine processes; delay and saturation take the worst, and steal (the host's, the
 * same for every engine on it) the highest reading. Each engine judges its own core's saturation.
 */
function mergeHealth(all: AgentHealth[]): AgentHealth {
  const saturated = all.filter((h) => h.saturated);
  const [first] = saturated;
  const reason =
    first?.saturatedReason &&
    (saturated.length === all.length
      ? first.saturatedReason
      : `${saturated.length} of ${all.length} engines: ${first.saturatedReason}`);
  const steals = all.flatMap((h) => (h.stealPercent === undefined ? [] : [h.stealPercent]));
  const holds = all.flatMap((h) => (h.eventLoopMaxMs === undefined ? [] : [h.eventLoopMaxMs]));
  const openFds = all.every((h) => h.openFds === undefined)
    ? undefined
    : all.reduce((sum, h) => sum + (h.openFds ?? 0), 0);
  const fdLimit = all.find((h) => h.fdLimit !== undefined)?.fdLimit;
  return {
    cpuPercent: Math.round(all.reduce((sum, h) => sum + h.cpuPercent, 0) * 100) / 100,
    eventLoopP99Ms: Math.max(...all.map((h) => h.eventLoopP99Ms)),
    ...(holds.length ? { eventLoopMaxMs: Math.max(...holds) } : {}),
    rssBytes: all.reduce((sum, h) => sum + h.rssBytes, 0),
    ...(openFds !== undefined ? { openFds } : {}),
    ...(fdLimit !== undefined ? { fdLimit } : {}),
    engines: all.reduce((sum, h) => sum + (h.engines ?? 1), 0),
    ...(steals.length ? { stealPercent: Math.max(...steals) } : {}),
    saturated: first !== undefined,
    ...(reason ? { saturatedReason: reason.slice(0, 200) } : {}),
  };
}

/** Each cohort's parts merged as the snapshots are: clients and counters summed, histograms merged. */
function mergeCohorts(all: MetricSnapshot[]): Record<string, CohortSnapshot> | undefined {
  const names = [...new Set(all.flatMap((s) => Object.keys(s.cohorts ?? {})))];
  if (!names.length) return undefined;
  return Object.fromEntries(
    names.map((name) => {
      const parts = all.flatMap((s) => (s.cohorts?.[name] ? [s.cohorts[name]] : []));
      return [
        name,
        {
          clients: parts.reduce((sum, p) => sum + p.clients, 0),
          counters: mergeCounters(parts.map((p) => p.counters)),
          histograms: mergeHistograms(parts.map((p) => p.histograms)),
          applied: worstNetworkPath(parts.map((p) => p.applied))!,
        },
      ];
    }),
  );
}

/** One snapshot from the same second of several engines (one per core): counters summed, histograms merged. */
export function mergeSnapshots(all: MetricSnapshot[]): MetricSnapshot {
  const [first] = all;
  if (!first) throw new Error("nothing to merge");
  if (all.length === 1) return first;
  return {
    runId: first.runId,
    seq: first.seq,
    intervalStart: first.intervalStart,
    intervalMs: Math.max(...all.map((s) => s.intervalMs)),
    clients: all.reduce((sum, s) => sum + s.clients, 0),
    counters: mergeCounters(all.map((s) => s.counters)),
    histograms: mergeHistograms(all.map((s) => s.histograms)),
    health: mergeHealth(all.map((s) => s.health)),
    ...(first.step !== undefined ? { step: first.step } : {}),
    ...withCohorts(mergeCohorts(all)),
    ...withRooms(all.flatMap((s) => (s.rooms ? [s.rooms] : []))),
  };
}

/** Each engine's rooms are its own (a room lives on one engine): their reports merge by the run's rule. */
const withRooms = (reports: RoomsReport[]) => (reports.length ? { rooms: mergeRoomsReports(reports) } : {});

const withCohorts = (cohorts: Record<string, CohortSnapshot> | undefined) => (cohorts ? { cohorts } : {});
