// SLO metrics in words: "rtt-p99-ms" reads "Round trip p99" wherever the dashboard shows one, including the
// sentences and reasons the API writes with metric ids (the ids stay in the API, the CLI and plan files).
import { sloMetricName, sloWords } from "@throng/protocol/slo-names";
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

/** Text from the API with its SLO metric ids and thresholds in words and units: "Round trip p99 below 50 ms". */
export function sloText(text: string): string {
  return sloWords(text, formatSloValue);
}
