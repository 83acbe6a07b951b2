import { SCRIPT_SLO_ID } from "./script-metrics";
import { BUILTIN_SLO_METRICS, sloMetricSpec } from "./slo-metrics";

/** "Round trip p99" (the dashboard and the report PDF; ids stay in the API, the CLI and plan files); a script's metric by its own name: "script:join-ms-p99" reads "join-ms p99 (script)". */
export function sloMetricName(metric: string): string {
  return sloMetricSpec(metric)?.words ?? metric;
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

/** Both command lines' format (throng run, throng-agent run): "82.5 ms", "1.25%", "1200". */
export const PLAIN_SLO_FORMAT: SloValueFormat = {
  integer: String,
  ms: (value) => `${value} ms`,
  percent: (ratio) => `${Number((ratio * 100).toFixed(3))}%`,
};

/** An SLO's threshold or measured value in its unit (slo-metrics.ts): a whole count, percent for the 0..1 rates, else ms. */
export function sloValueText(metric: string, value: number | null, format: SloValueFormat): string {
  if (value === null) return "not measured";
  const unit = sloMetricSpec(metric)?.unit ?? "ms";
  switch (unit) {
    case "count":
      return format.integer(value);
    case "ratio":
      return format.percent(value);
    case "ms":
      return format.ms(value);
  }
}

const METRIC = `(?:${BUILTIN_SLO_METRICS.join("|")}|${SCRIPT_SLO_ID})`;
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
    .replace(
      MEASURED,
      (_all, metric: string, measured: string, below: string) =>
        `${sloMetricName(metric)} (${value(metric, Number(measured))}, must be below ${value(metric, Number(below))})`,
    )
    .replace(
      BELOW,
      (_all, metric: string, below: string) => `${sloMetricName(metric)} below ${value(metric, Number(below))}`,
    )
    .replace(BARE, (metric: string) => sloMetricName(metric));
}
