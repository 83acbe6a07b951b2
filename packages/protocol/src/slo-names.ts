import { scriptSloMetric } from "./slo-judge";

/** The SLO metrics in words, as the dashboard and the report PDF show them (ids stay in the API, the CLI and plan files). */
export const SLO_METRIC_NAMES: Readonly<Record<string, string>> = {
  "rtt-p50-ms": "Round trip p50",
  "rtt-p99-ms": "Round trip p99",
  "rtt-corrected-p99-ms": "Round trip p99 (corrected)",
  "broadcast-p99-ms": "Broadcast p99",
  "connect-p99-ms": "Connect p99",
  "login-p99-ms": "Login p99",
  "error-rate": "Error rate",
  "loss-rate": "Loss rate",
};

/** "Round trip p99"; a script's metric by its own name: "script:join-ms-p99" reads "join-ms p99 (script)". */
export function sloMetricName(metric: string): string {
  const script = scriptSloMetric(metric);
  if (script) return `${script.name} ${script.stat} (script)`;
  return SLO_METRIC_NAMES[metric] ?? metric;
}

/** An SLO by name and scope: "Round trip p99", or "Round trip p99, cohort mobile" for one network cohort's clients. */
export function sloName(slo: { metric: string; cohort?: string | undefined }): string {
  return slo.cohort === undefined ? sloMetricName(slo.metric) : `${sloMetricName(slo.metric)}, cohort ${slo.cohort}`;
}

/** A reader's number formats for SLO values: the dashboard's and the PDF's. */
export interface SloValueFormat {
  integer(value: number): string;
  ms(value: number): string;
  /** A 0..1 ratio as percent. */
  percent(ratio: number): string;
}

/** An SLO's threshold or measured value: a whole number for a script's counter, percent for the 0..1 rates, else ms. */
export function sloValueText(metric: string, value: number | null, format: SloValueFormat): string {
  if (value === null) return "not measured";
  if (scriptSloMetric(metric)?.stat === "count") return format.integer(value);
  if (metric.endsWith("-rate")) return format.percent(value);
  return format.ms(value);
}

const BUILTIN = Object.keys(SLO_METRIC_NAMES).join("|");
const METRIC = `(?:${BUILTIN}|script:[a-z][a-z0-9-]{0,40}-(?:p50|p99|count))`;
const NUMBER = "(-?\\d+(?:\\.\\d+)?(?:e-?\\d+)?)";
/** "rtt-p99-ms < 50" (a search's sentence). */
const BELOW = new RegExp(`(?<![\\w:-])(${METRIC}) < ${NUMBER}`, "g");
/** "rtt-p99-ms (82.5, must be below 50)" (a verdict's reason). */
const MEASURED = new RegExp(`(?<![\\w:-])(${METRIC}) \\(${NUMBER}, must be below ${NUMBER}\\)`, "g");
const BARE = new RegExp(`(?<![\\w:-])(${METRIC})(?![\\w-])`, "g");

/**
 * Text the API writes with SLO metric ids and raw thresholds (a capacity search's sentence, a verdict's reasons) in
 * words, each value in the reader's format: "rtt-p99-ms < 50" reads "Round trip p99 below 50 ms". The dashboard and
 * the report PDF each pass their own number format.
 */
export function sloWords(text: string, value: (metric: string, value: number) => string): string {
  return text
    .replace(MEASURED, (_all, metric: string, measured: string, below: string) => `${sloMetricName(metric)} (${value(metric, Number(measured))}, must be below ${value(metric, Number(below))})`)
    .replace(BELOW, (_all, metric: string, below: string) => `${sloMetricName(metric)} below ${value(metric, Number(below))}`)
    .replace(BARE, (metric: string) => sloMetricName(metric));
}
