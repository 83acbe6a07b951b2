// Network cohorts second by second (plan.network, docs/networks.md): the live table of each cohort's latest second,
// and the latency chart with a line per cohort beside all the run's clients. A cohort's second is read exactly as
// the run's is (SeriesPoint.cohorts), so the figures agree with the summary and the SLO judge.
import { cohortLatencyRead, type CohortLatency } from "@throng/protocol/cohort-report";
import type { Slo } from "@throng/protocol/plan";
import { inChartUnit } from "@throng/protocol/slo-metrics";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import type { ScenarioKind } from "./scenario-view";
import type { ChartLine } from "../charts/series";
import type { Threshold } from "../charts/slo-live";
import { formatSloValue, metricName } from "../shared/slo-text";
import { formatInteger, formatMs } from "../shared/format";
import { formatRatioPercent } from "./scenario-view";

export { cohortLatencyRead, type CohortLatency };

/** Cohort names the plan lists, then any other a second carries (a plan edited since, say), in that order. */
export function cohortNames(planned: readonly string[], points: readonly SeriesPoint[]): string[] {
  const names = [...planned];
  for (const point of points)
    for (const name of Object.keys(point.cohorts ?? {})) if (!names.includes(name)) names.push(name);
  return names;
}

// Distinct from the run's own line: all clients are grey and dashed, so the cohorts stand out against them.
const COHORT_COLOURS = ["#cf222e", "#0969da", "#1a7f37", "#8250df", "#9a6700", "#bf3989", "#0a7b83", "#953800"];
export const ALL_CLIENTS_COLOUR = "#57606a";

/** The colour of cohort `index` (the same in the live table's key and on the chart). */
export const cohortColour = (index: number) => COHORT_COLOURS[index % COHORT_COLOURS.length]!;

/** p99 of each cohort, one line each, and of all the run's clients (cohorts included) as a dashed reference. */
export function cohortLatencyLines(names: readonly string[], latency: CohortLatency): ChartLine[] {
  return [
    ...names.map((name, index) => ({
      label: `${name} p99`,
      color: cohortColour(index),
      value: (p: SeriesPoint) => latency.read(p.cohorts?.[name]),
    })),
    { label: "all clients p99", color: ALL_CLIENTS_COLOUR, dash: [6, 4], value: (p: SeriesPoint) => latency.read(p) },
  ];
}

/** The SLOs naming a cohort on this chart's metric: a line each, named by its cohort. */
export function cohortThresholds(slos: readonly Slo[], latency: CohortLatency): Threshold[] {
  return slos
    .filter((slo) => slo.cohort !== undefined && slo.metric === latency.slo)
    .map((slo) => ({
      value: inChartUnit(slo.metric, slo.below),
      label: `SLO ${slo.cohort}: ${metricName(slo.metric)} < ${formatSloValue(slo.metric, slo.below)}`,
    }));
}

/** One cohort's latest second, in words. */
export interface LiveCohortRow {
  name: string;
  clients: string;
  p50: string;
  p99: string;
  errors: string;
  /** movement-sync: broadcasts received of those expected; "—" elsewhere. */
  reach: string;
}

/**
 * Each cohort's figures in the newest second that carries cohorts (the run's last second may not have reached every
 * agent's yet); a cohort that second lacks shows dashes, not figures from an older second.
 */
export function liveCohortRows(
  names: readonly string[],
  points: readonly SeriesPoint[],
  kind: ScenarioKind,
): { t: number | null; rows: LiveCohortRow[] } {
  let latest: SeriesPoint | undefined;
  for (let i = points.length - 1; i >= 0 && !latest; i -= 1)
    if (Object.keys(points[i]!.cohorts ?? {}).length > 0) latest = points[i];
  const latency = cohortLatencyRead(kind);
  const rows = names.map((name) => {
    const cohort = latest?.cohorts?.[name];
    if (!cohort) return { name, clients: "—", p50: "—", p99: "—", errors: "—", reach: "—" };
    return {
      name,
      clients: formatInteger(cohort.clients),
      p50: latency ? formatMs(latency.read(cohort, "p50")) : "—",
      p99: latency ? formatMs(latency.read(cohort)) : "—",
      errors: formatInteger(cohort.errors),
      reach: kind === "movement-sync" ? formatRatioPercent(cohort.broadcastReach) : "—",
    };
  });
  return { t: latest?.t ?? null, rows };
}
