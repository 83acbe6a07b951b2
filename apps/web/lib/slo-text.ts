// SLO metrics in words: "rtt-p99-ms" reads "Round trip p99" wherever the dashboard shows one, including the
// sentences and reasons the API writes with metric ids (the ids stay in the API, the CLI and plan files).
import { SLO_METRIC_NAMES, sloMetricName } from "@throng/protocol/slo-names";
import { scriptSloMetric } from "@throng/protocol/slo-judge";
import { formatInteger, formatMs } from "./format";

/** "Round trip p99"; a script's metric by its own name (the names are the protocol's, shared with the report PDF). */
export const metricName = sloMetricName;

/** Milliseconds for latency SLOs, percent for the 0..1 rates, a whole number for a script's counter. */
export function formatSloValue(metric: string, value: number | null): string {
  if (value === null) return "not measured";
  if (scriptSloMetric(metric)?.stat === "count") return formatInteger(value);
  if (metric.endsWith("-rate")) return `${(value * 100).toLocaleString("en-US", { maximumFractionDigits: 2 })} %`;
  return formatMs(value);
}

const BUILTIN = Object.keys(SLO_METRIC_NAMES).join("|");
const METRIC = `(?:${BUILTIN}|script:[a-z][a-z0-9-]{0,40}-(?:p50|p99|count))`;
const NUMBER = "(-?\\d+(?:\\.\\d+)?(?:e-?\\d+)?)";
/** "rtt-p99-ms < 50" (a search's sentence). */
const BELOW = new RegExp(`(?<![\\w:-])(${METRIC}) < ${NUMBER}`, "g");
/** "rtt-p99-ms (82.5, must be below 50)" (a verdict's reason). */
const MEASURED = new RegExp(`(?<![\\w:-])(${METRIC}) \\(${NUMBER}, must be below ${NUMBER}\\)`, "g");
const BARE = new RegExp(`(?<![\\w:-])(${METRIC})(?![\\w-])`, "g");

/** Text from the API with its SLO metric ids and thresholds in words and units: "Round trip p99 below 50 ms". */
export function sloText(text: string): string {
  return text
    .replace(MEASURED, (_all, metric: string, value: string, below: string) => `${metricName(metric)} (${formatSloValue(metric, Number(value))}, must be below ${formatSloValue(metric, Number(below))})`)
    .replace(BELOW, (_all, metric: string, below: string) => `${metricName(metric)} below ${formatSloValue(metric, Number(below))}`)
    .replace(BARE, (metric: string) => metricName(metric));
}
