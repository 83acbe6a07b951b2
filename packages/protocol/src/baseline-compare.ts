// A run held to its baseline (issue 28 §3): each SLO metric and the scenario's own figures of the run against the
// baseline run's, the change in percent (percentage points for rates), whether it is inside the runs' own
// second-to-second spread, and which metrics got worse than their allowance. Pure: the CLI's gate and the report
// read the same answer from the same two runs.
import type { PlanSpec } from "./plan";
import type { RunSummary } from "./run";
import type { SeriesPoint } from "./snapshot";
import { measuredOfPoint, measuredOfSummary, type SloMetric } from "./slo-judge";
import { scriptSloMetric } from "./script-metrics";
import { sloMetricName } from "./slo-names";
import { hasRoundTrips, scenarioMetrics } from "./scenario-metrics";
import { spreadOf, withinNoise } from "./compare-noise";
import { changeUnitOf, type ChangeUnit, type RegressionAllowance } from "./regression-allowance";

/** What the comparison reads of each run. */
export interface ComparedRun {
  id: string;
  spec: Pick<PlanSpec, "scenario" | "slos">;
  summary: RunSummary | null;
  series: readonly SeriesPoint[];
}

/**
 * regressed: worse than its allowance and outside the noise; worse / better: a change outside the noise (worse but
 * within its allowance, or not held to one); within-noise: inside either run's second-to-second spread; same: no
 * change; no-data: either run did not measure it.
 */
export type MetricStatus = "regressed" | "worse" | "within-noise" | "same" | "better" | "no-data";

/** One metric of the run against the baseline; every metric here is better lower. */
export interface MetricComparison {
  metric: string;
  /** In words: "Round trip p99". */
  name: string;
  baseline: number | null;
  value: number | null;
  /** Percent of the baseline (or percentage points, for a rate), positive when worse, to 0.1; null without both figures or from a baseline of 0. */
  change: number | null;
  unit: ChangeUnit;
  /** Whether the change is inside either run's own second-to-second spread; null when neither has one. */
  withinNoise: boolean | null;
  /** How much worse it may be, when the run is held to an allowance for it. */
  allowance: number | null;
  status: MetricStatus;
}

/** held: no metric held to an allowance got worse than it; regressed: one did; incomplete: one had no data in either run. */
export type BaselineOutcome = "held" | "regressed" | "incomplete";

export interface BaselineComparison {
  runId: string;
  baselineRunId: string;
  outcome: BaselineOutcome;
  metrics: MetricComparison[];
}

/** The metrics compared: the scenario's own, the plan's SLOs, the error rate, and any held to an allowance. */
export function comparedMetrics(spec: ComparedRun["spec"], allowances: readonly RegressionAllowance[] = []): string[] {
  const own = [
    ...(hasRoundTrips(spec.scenario.kind) ? ["rtt-p50-ms", "rtt-p99-ms"] : []),
    ...scenarioMetrics(spec.scenario.kind).map((figure) =>
      figure.id === "broadcast-reach" ? "loss-rate" : figure.slo,
    ),
  ];
  const all = [
    ...own,
    ...(spec.slos ?? []).map((slo) => slo.metric),
    "error-rate",
    ...allowances.map((allowance) => allowance.metric),
  ];
  return [...new Set(all.filter((metric): metric is string => metric !== undefined))];
}

function changeOf(unit: ChangeUnit, from: number | null, to: number | null): number | null {
  if (from === null || to === null) return null;
  if (unit === "pp") return Math.round((to - from) * 1000) / 10;
  if (from === 0) return to === 0 ? 0 : null;
  return Math.round(((to - from) / from) * 1000) / 10;
}

/** A metric's spread over a run's steady seconds; a script counter's total has no per-second counterpart. */
function spread(run: ComparedRun, metric: string): number | null {
  if (scriptSloMetric(metric)?.stat === "count") return null;
  return spreadOf(run.series, (point) => measuredOfPoint(point)(metric as SloMetric));
}

function statusOf(
  from: number | null,
  to: number | null,
  change: number | null,
  noise: boolean | null,
  allowance: number | null,
): MetricStatus {
  if (from === null || to === null) return "no-data";
  if (noise === true) return "within-noise";
  if (to === from) return "same";
  if (to < from) return "better";
  // From a baseline of 0 any increase is past a percent allowance (change is null: no percent of 0).
  return allowance !== null && (change === null || change > allowance) ? "regressed" : "worse";
}

/** `run` against `baseline`, each metric held to its allowance when one is given. */
export function compareWithBaseline(
  run: ComparedRun,
  baseline: ComparedRun,
  allowances: readonly RegressionAllowance[] = [],
): BaselineComparison {
  const measuredRun = run.summary ? measuredOfSummary(run.summary) : () => null;
  const measuredBaseline = baseline.summary ? measuredOfSummary(baseline.summary) : () => null;
  const metrics = comparedMetrics(run.spec, allowances).map((metric): MetricComparison => {
    const from = measuredBaseline(metric as SloMetric);
    const to = measuredRun(metric as SloMetric);
    const unit = changeUnitOf(metric);
    const change = changeOf(unit, from, to);
    const noise = withinNoise(from, to, [spread(baseline, metric), spread(run, metric)]);
    const allowance = allowances.find((held) => held.metric === metric)?.limit ?? null;
    return {
      metric,
      name: sloMetricName(metric),
      baseline: from,
      value: to,
      change,
      unit,
      withinNoise: noise,
      allowance,
      status: statusOf(from, to, change, noise, allowance),
    };
  });
  const held = metrics.filter((metric) => metric.allowance !== null);
  const outcome: BaselineOutcome = held.some((metric) => metric.status === "regressed")
    ? "regressed"
    : held.some((metric) => metric.status === "no-data")
      ? "incomplete"
      : "held";
  return { runId: run.id, baselineRunId: baseline.id, outcome, metrics };
}

/** "+51.9%", "−0.3 pp", "no change"; how the CLI and the report say a change. */
export function changeText(comparison: Pick<MetricComparison, "change" | "unit" | "baseline" | "value">): string {
  if (comparison.baseline === null || comparison.value === null) return "no data";
  if (comparison.change === null) return "up from 0";
  if (comparison.change === 0) return "no change";
  const sign = comparison.change > 0 ? "+" : "−";
  return `${sign}${Math.abs(comparison.change)}${comparison.unit === "pp" ? " pp" : "%"}`;
}
