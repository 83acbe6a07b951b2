import type { NetworkCohort } from "@throng/protocol/network";
import type { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { Histogram } from "hdr-histogram-js";
import { runOnEngines } from "../engine/engines";
import { assignmentFor, merged, total } from "./assignment";

/** Runs a plan with network cohorts on one engine, the way `throng-agent run` does (its network prepared first). */
export async function runCohortPlan(plan: Omit<PlanSpec, "name">): Promise<MetricSnapshot[]> {
  const snapshots: MetricSnapshot[] = [];
  await runOnEngines(assignmentFor(plan), { engines: 1, startWhenReady: true, onSnapshot: (s) => snapshots.push(s) });
  return snapshots;
}

/**
 * One cohort's seconds as snapshots of their own (its clients, counters and histograms in the snapshot's place);
 * seconds without the cohort are left out.
 */
function cohortSeconds(snapshots: readonly MetricSnapshot[], name: string): MetricSnapshot[] {
  return snapshots.flatMap((snapshot) => {
    const part = snapshot.cohorts?.[name];
    if (!part) return [];
    const { cohorts: _, ...rest } = snapshot;
    return [{ ...rest, clients: part.clients, counters: part.counters, histograms: part.histograms }];
  });
}

/** The run's figures and one cohort's, and the rig clients' (the run's less the cohort's, for counters). */
export function cohortFigures(snapshots: MetricSnapshot[], name: NetworkCohort["name"]) {
  const cohort = cohortSeconds(snapshots, name);
  const ms = (histogram: Histogram | undefined, percentile: number) =>
    histogram?.totalCount ? histogram.getValueAtPercentile(percentile) / 1000 : NaN;
  const rtt = (seconds: MetricSnapshot[]) => merged(seconds, "rttUs");
  return {
    cohort,
    count: (counter: keyof MetricSnapshot["counters"]) => total(cohort, counter),
    /** A counter of the clients outside the cohort. */
    rigCount: (counter: keyof MetricSnapshot["counters"]) => total(snapshots, counter) - total(cohort, counter),
    cohortRtt: (percentile: number) => ms(rtt(cohort), percentile),
    runRtt: (percentile: number) => ms(rtt(snapshots), percentile),
  };
}
