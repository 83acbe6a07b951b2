// The plan form's SLO section, from the metric registry (slo-metrics.ts): the metrics the draft's scenario measures
// (a script's declared ones first), what a new SLO starts as, and thresholds of rates shown and typed in percent
// while the plan stores the fraction (docs/verdicts.md, "Units").
import {
  firstSloMetric,
  measuredSloMetrics,
  sloMetricProblem,
  sloMetricSpec,
  type SloPlan,
} from "@throng/protocol/slo-metrics";
import { SCRIPT_METRIC_NAME } from "@throng/protocol/script-metrics";
import type { Target } from "@throng/protocol/plan";
import type { DraftObject } from "./schema-form";

const METRIC_NAME = new RegExp(`^${SCRIPT_METRIC_NAME}$`);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** What the draft says that decides its metrics, read as the schema will read it (booleans are typed as text). */
export function sloPlanOfDraft(draft: DraftObject): SloPlan {
  const scenario = isObject(draft.scenario) ? draft.scenario : {};
  const target = isObject(draft.target) ? draft.target : {};
  const metrics = (Array.isArray(scenario.metrics) ? scenario.metrics : []).flatMap(
    (metric): { name: string; kind: "histogram" | "counter" }[] => {
      const name = isObject(metric) && typeof metric.name === "string" ? metric.name.trim() : "";
      const kind = isObject(metric) ? metric.kind : undefined;
      return METRIC_NAME.test(name) && (kind === "histogram" || kind === "counter") ? [{ name, kind }] : [];
    },
  );
  return {
    scenario: {
      kind: String(scenario.kind ?? "") as SloPlan["scenario"]["kind"],
      login: scenario.login === "true" || scenario.login === true,
      session: Array.isArray(scenario.session) ? scenario.session : undefined,
      metrics,
    },
    target: { protocol: String(target.protocol ?? "") as Target["protocol"] },
  };
}

/** The metrics an SLO of this draft can name: what its scenario measures, a script's declared metrics first. */
export function sloMetricChoices(draft: DraftObject): string[] {
  return measuredSloMetrics(sloPlanOfDraft(draft));
}

/** A ratio in percent, as typed: 0.07 reads "7", not "7.000000000000001". */
const percentText = (ratio: number) => String(Number((ratio * 100).toPrecision(12)));

/** A new SLO row: the scenario's own figure, with a threshold in that metric's unit. */
export function newSloRow(draft: DraftObject): DraftObject {
  const metric = firstSloMetric(sloPlanOfDraft(draft));
  const unit = sloMetricSpec(metric)?.unit;
  return { metric, below: unit === "ratio" ? "1" : unit === "count" ? "1" : "50" };
}

/** The unit an SLO row's threshold is typed in, for its field: "ms", "%", or a count. */
export function sloBelowUnit(metric: unknown): string | undefined {
  const unit = typeof metric === "string" ? sloMetricSpec(metric)?.unit : undefined;
  return unit === "ratio" ? "%" : unit === "ms" ? "ms" : unit === "count" ? "count" : undefined;
}

const isRatio = (metric: unknown) => typeof metric === "string" && sloMetricSpec(metric)?.unit === "ratio";

/** A plan's SLOs as the form shows them: a rate's threshold (a fraction in the plan) in percent. */
export function slosForForm(slos: unknown): unknown {
  if (!Array.isArray(slos)) return slos;
  return slos.map((slo) =>
    isObject(slo) &&
    isRatio(slo.metric) &&
    typeof slo.below === "string" &&
    slo.below.trim() !== "" &&
    Number.isFinite(Number(slo.below))
      ? { ...slo, below: percentText(Number(slo.below)) }
      : slo,
  );
}

/** The form's SLOs as the plan stores them: a rate's threshold, typed in percent, as the fraction. */
export function slosForPlan(slos: unknown): unknown {
  if (!Array.isArray(slos)) return slos;
  return slos.map((slo) =>
    isObject(slo) && isRatio(slo.metric) && typeof slo.below === "number" ? { ...slo, below: slo.below / 100 } : slo,
  );
}

/** Problems the form says beyond the schema: an SLO its scenario never measures that saving still takes (plans saved before could). */
export function unmeasuredSloErrors(draft: DraftObject): Record<string, string> {
  const plan = sloPlanOfDraft(draft);
  const errors: Record<string, string> = {};
  (Array.isArray(draft.slos) ? draft.slos : []).forEach((slo, i) => {
    const metric = isObject(slo) ? slo.metric : undefined;
    const problem = typeof metric === "string" ? sloMetricProblem(metric, plan) : null;
    if (problem && !problem.refused) errors[`slos.${i}.metric`] = `${metric}: ${problem.message}`;
  });
  return errors;
}
