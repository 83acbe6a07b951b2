// A run against its plan's pinned baseline, as the run page and the report show it: one row per metric with both
// figures, the change and what it means. The comparison is protocol's (baseline-compare.ts), the same the CLI's
// --baseline gate reads, so the page and CI never disagree about a run.
import type { BaselineComparison, MetricStatus } from "@throng/protocol/baseline-compare";
import { changeText } from "@throng/protocol/baseline-compare";
import { formatSloValue, metricName } from "../shared/slo-text";

export interface BaselineRow {
  metric: string;
  label: string;
  baseline: string;
  value: string;
  /** "+12.5%", "−0.3 pp", "no change". */
  change: string;
  status: MetricStatus;
  /** The status in words: "within noise", "worse", "better". */
  verdict: string;
}

const WORDS: Record<MetricStatus, string> = {
  regressed: "regressed",
  worse: "worse",
  "within-noise": "within noise",
  same: "no change",
  better: "better",
  "no-data": "not measured",
};

export function baselineRows(comparison: BaselineComparison): BaselineRow[] {
  return comparison.metrics.map((metric) => ({
    metric: metric.metric,
    label: metricName(metric.metric),
    baseline: formatSloValue(metric.metric, metric.baseline),
    value: formatSloValue(metric.metric, metric.value),
    change: changeText(metric),
    status: metric.status,
    verdict: WORDS[metric.status],
  }));
}
