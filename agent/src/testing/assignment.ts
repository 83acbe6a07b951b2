import type { RunAssignment } from "@throng/protocol/agent";
import type { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { Histogram } from "hdr-histogram-js";
import { runShard } from "../engine/run-shard";
import { decodeHistogram } from "../metrics/histogram";

/** A one-shard assignment starting now, for engine tests. */
export function assignmentFor(plan: Omit<PlanSpec, "name">, startAt = Date.now()): RunAssignment {
  return {
    runId: "4f2b8c1d-6e3a-4d5b-9c7f-1a2b3c4d5e6f",
    shardIndex: 0,
    shardCount: 1,
    clients: plan.load.clients,
    startAt,
    plan: { name: "engine test", ...plan },
  };
}

/** Runs the plan to its end and returns every snapshot. */
export async function runPlan(plan: Omit<PlanSpec, "name">): Promise<MetricSnapshot[]> {
  const snapshots: MetricSnapshot[] = [];
  await runShard(assignmentFor(plan), { onSnapshot: (s) => snapshots.push(s) });
  return snapshots;
}

/** Merges one histogram across snapshots, as the server does across seconds. */
export function merged(snapshots: MetricSnapshot[], name: keyof MetricSnapshot["histograms"]): Histogram | undefined {
  const encoded = snapshots.map((s) => s.histograms[name]).filter((h): h is string => h !== undefined);
  if (encoded.length === 0) return undefined;
  const [first, ...rest] = encoded.map((h) => decodeHistogram(h));
  for (const histogram of rest) first!.add(histogram);
  return first;
}

/** Sums a counter across snapshots. */
export function total(snapshots: MetricSnapshot[], name: keyof MetricSnapshot["counters"]): number {
  return snapshots.reduce((sum, s) => sum + ((s.counters[name] as number | undefined) ?? 0), 0);
}

/** Sums a by-kind record across snapshots. */
export function totalsByKind(
  snapshots: MetricSnapshot[],
  name: "errorsByKind" | "closesByCause",
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of snapshots)
    for (const [kind, n] of Object.entries(s.counters[name] ?? {})) out[kind] = (out[kind] ?? 0) + n;
  return out;
}
