// A plan's SLOs on the run page while it runs: each threshold as a line on the chart of its metric, and how many
// of the seconds so far met or breached it. The seconds are judged by the shared judge (slo-judge.ts), so the
// live tally counts what the verdict will count.
import type { Slo } from "@throng/protocol/plan";
import { judgeSlos, measuredOfPoint } from "@throng/protocol/slo-judge";
import { inChartUnit, sloMetricSpec, type BuiltinSloMetricOf, type SloChart } from "@throng/protocol/slo-metrics";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import type { ChartLine } from "./series";
import { formatSloValue, metricName, sloName } from "../shared/slo-text";

export type { SloChart } from "@throng/protocol/slo-metrics";

/**
 * The chart whose y axis reads `metric` in its unit (slo-metrics.ts); null for a script's counter, whose threshold
 * is on the running total and so has no place on a per-second chart.
 */
export function sloChart(metric: string): SloChart | null {
  return sloMetricSpec(metric)?.chart ?? null;
}

/** A horizontal line across a chart at `value` (in the chart's unit), with its words. */
export interface Threshold {
  value: number;
  label: string;
  /** A line that is not an SLO (the trend's baseline run) in its own colour; SLOs are red. */
  colour?: string;
}

const isRate = (metric: string): metric is BuiltinSloMetricOf<"ratio"> => sloMetricSpec(metric)?.unit === "ratio";

/**
 * The thresholds of the SLOs drawn on `chart`; rates in percent, as the rates chart reads them. The charts are the
 * whole run's, so an SLO scoped to a network cohort is not drawn on them.
 */
export function sloThresholds(slos: readonly Slo[], chart: SloChart): Threshold[] {
  return slos
    .filter((slo) => slo.cohort === undefined && sloChart(slo.metric) === chart)
    .map((slo) => ({
      value: inChartUnit(slo.metric, slo.below),
      label: `SLO: ${metricName(slo.metric)} < ${formatSloValue(slo.metric, slo.below)}`,
    }));
}

/** Each rate's line colour: a new rate metric does not compile until it has one. */
const RATE_COLOURS = { "error-rate": "#cf222e", "loss-rate": "#9a6700" } satisfies Record<
  BuiltinSloMetricOf<"ratio">,
  string
>;

/** The rates the plan's SLOs name (error rate, loss rate), in percent per second, as the judge measures them. */
export function sloRateLines(slos: readonly Slo[]): ChartLine[] {
  const metrics = [
    ...new Set(
      slos
        .filter((slo) => slo.cohort === undefined)
        .map((slo) => slo.metric)
        .filter(isRate),
    ),
  ].sort();
  return metrics.map((metric) => ({
    label: `${metricName(metric)} %`,
    color: RATE_COLOURS[metric],
    value: (point: SeriesPoint) => {
      const rate = measuredOfPoint(point)(metric);
      return rate === null ? null : inChartUnit(metric, rate);
    },
  }));
}

/** One SLO so far: its words, and the seconds that measured it under (met) or at or over (breached) its threshold. */
export interface SloTally {
  metric: string;
  label: string;
  met: number;
  breached: number;
}

export function sloTally(slos: readonly Slo[], points: readonly SeriesPoint[]): SloTally[] {
  // The whole-run value is the verdict's business once the run ends; only the per-second counts are read here.
  return judgeSlos(slos, () => null, points).map((verdict) => ({
    metric: verdict.metric,
    label: `${sloName(verdict)} below ${formatSloValue(verdict.metric, verdict.below)}`,
    met: verdict.measuredSeconds - verdict.breachedSeconds,
    breached: verdict.breachedSeconds,
  }));
}
