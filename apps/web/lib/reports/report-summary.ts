// What the report says in words: the one sentence at the top, each SLO's verdict, and the capacity
// estimate's evidence as labelled figures. Pure functions, so the signed-in and the shared report agree.
import type { CapacityEstimate, RunVerdict, SloVerdict, UslFit } from "@throng/protocol/report";
import { reportHeadline } from "@throng/protocol/report-headline";
import type { RunView } from "@throng/protocol/run";
import { formatDateTime, formatDecimal, formatFixed, formatInteger, formatMs, formatRate } from "../shared/format";
import { formatSloValue, metricName, sloName, sloText } from "../shared/slo-text";
import { formatRatioPercent } from "../runs/scenario-view";

export { formatSloValue, metricName } from "../shared/slo-text";

export interface SloRow {
  metric: string;
  name: string;
  threshold: string;
  measured: string;
  passed: boolean;
  /** "met", "broken" or "no data" (an SLO over no samples, or with too few measured seconds, is never met). */
  status: string;
  /** "broke in 3 of 20 s, first at 12:00:03" or "held every measured second". */
  seconds: string;
}

export function sloRows(verdict: RunVerdict | null | undefined): SloRow[] {
  return (verdict?.slos ?? []).map((slo: SloVerdict) => ({
    metric: slo.metric,
    name: sloName(slo),
    threshold: `below ${formatSloValue(slo.metric, slo.below)}`,
    measured: formatSloValue(slo.metric, slo.value),
    passed: slo.passed,
    status:
      slo.status === "no-data" || (slo.status === undefined && slo.value === null)
        ? "no data"
        : slo.passed
          ? "met"
          : "broken",
    seconds:
      slo.status === "no-data" && slo.note
        ? slo.note
        : slo.measuredSeconds === 0
          ? "no second measured it"
          : slo.breachedSeconds === 0
            ? `held all ${slo.measuredSeconds} s measured`
            : `broke in ${slo.breachedSeconds} of ${slo.measuredSeconds} s${slo.firstBreachAt === null ? "" : `, first at ${formatDateTime(slo.firstBreachAt * 1000)}`}`,
  }));
}

/**
 * The plan's SLOs as rows of a verdict that judged none of them (a run that failed before its first second): each
 * "not judged", never "the plan sets no SLOs" beside a plan that has them.
 */
export function unjudgedSloRows(slos: readonly { metric: string; below: number }[]): SloRow[] {
  return slos.map((slo) => ({
    metric: slo.metric,
    name: metricName(slo.metric),
    threshold: `below ${formatSloValue(slo.metric, slo.below)}`,
    measured: "—",
    passed: false,
    status: "not judged",
    seconds: "no second was measured",
  }));
}

/** The one sentence at the top (the protocol's, shared with the report PDF), in the dashboard's number formats. */
export function reportSentence(run: RunView): string {
  return reportHeadline(run, {
    integer: formatInteger,
    rate: formatRate,
    ms: formatMs,
    percent: formatRatioPercent,
    words: sloText,
  });
}

export interface Fact {
  label: string;
  value: string;
  hint?: string;
}

/** A fitted parameter: 4 significant digits, and exponent notation below 0.001 so a tiny κ stays short. */
export function formatUslParameter(value: number): string {
  if (value !== 0 && Math.abs(value) < 1e-3) return Number(value.toPrecision(4)).toExponential();
  return formatDecimal(Number(value.toPrecision(4)), 20);
}
const PARAM = formatUslParameter;

function noPeakHint(usl: UslFit): string {
  if (usl.droppedKappa === undefined) return "κ is 0: no coherency cost, so throughput never falls";
  return `the fitted κ (${PARAM(usl.droppedKappa)}) changed the prediction at the largest step by under 1%, so it is taken as 0: the data show no retrograde region`;
}

/** What the search holds; a level the evidence after it contradicts is not claimed, and what is known is said instead. */
function holdsFact(capacity: CapacityEstimate): Fact {
  if (capacity.clients !== null)
    return {
      label: "Holds",
      value: `${formatInteger(capacity.clients)} clients`,
      hint: "largest step that met every SLO over its steady seconds",
    };
  if (capacity.lastHeldClients != null) {
    const range = capacity.range
      ? `; capacity is between ${formatInteger(capacity.range.from)} and ${formatInteger(capacity.range.to)} clients`
      : "";
    return {
      label: "Holds",
      value: "not claimed",
      hint: `${formatInteger(capacity.lastHeldClients)} clients held before the break, but the server did not recover${range}`,
    };
  }
  return { label: "Holds", value: "none of the steps", hint: "no step met every SLO" };
}

/** The estimate and the figures it rests on, each with the word a reader needs to judge it. */
export function capacityFacts(capacity: CapacityEstimate): Fact[] {
  const breaking =
    capacity.breakingStep === null ? null : capacity.steps.find((step) => step.step === capacity.breakingStep);
  const facts: Fact[] = [
    holdsFact(capacity),
    {
      label: "Broke at",
      value: breaking ? `${formatInteger(breaking.clients)} clients` : "no step broke",
      ...(capacity.breakingSlos.length ? { hint: `on ${capacity.breakingSlos.map(metricName).join(", ")}` } : {}),
    },
    {
      label: "Knee",
      value: capacity.kneeClients === null ? "not reached" : `${formatInteger(capacity.kneeClients)} clients`,
      hint: "where throughput stopped growing with clients",
    },
  ];
  const usl = capacity.usl;
  if (usl) {
    facts.push(
      { label: "λ (throughput per client)", value: `${PARAM(usl.lambda)} msg/s` },
      { label: "σ (contention)", value: PARAM(usl.sigma) },
      { label: "κ (coherency)", value: PARAM(usl.kappa) },
      {
        label: "R² (goodness of fit)",
        value: formatFixed(usl.rSquared, 3),
        hint: usl.rSquared < 0.9 ? "a weak fit: read its predictions with care" : "1 is a perfect fit",
      },
      {
        label: "Predicted peak",
        value: usl.peakClients === null ? "none" : `${formatInteger(usl.peakClients)} clients`,
        hint:
          usl.peakClients === null
            ? noPeakHint(usl)
            : usl.peakThroughputPerSec === null
              ? ""
              : `${formatRate(usl.peakThroughputPerSec)} msg/s`,
      },
      {
        label: "Trust the fit up to",
        value: `${formatInteger(usl.trustedUpToClients)} clients`,
        hint: "predictions beyond this are extrapolation",
      },
    );
  }
  return facts;
}

/** The agents that were the bottleneck while the estimate was decided, one line each. */
export function saturatedAgentLines(
  capacity: CapacityEstimate,
  hostname: (agentId: string) => string = (id) => id.slice(0, 8),
): string[] {
  const byAgent = new Map<string, { steps: number[]; reason: string }>();
  for (const step of capacity.steps) {
    for (const agent of step.saturatedAgents) {
      const entry = byAgent.get(agent.agentId) ?? { steps: [], reason: agent.reason };
      entry.steps.push(step.clients);
      byAgent.set(agent.agentId, entry);
    }
  }
  return [...byAgent].map(
    ([id, { steps, reason }]) =>
      `Agent ${hostname(id)} was saturated at ${steps.map(formatInteger).join(", ")} clients: ${reason}`,
  );
}

/** File names for exports: the plan's name made safe, plus the run's short id. */
export function exportFileName(run: Pick<RunView, "id" | "planName">, extension: "json" | "csv" | "pdf"): string {
  const slug =
    run.planName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "run";
  return `${slug}-${run.id.slice(0, 8)}.${extension}`;
}
