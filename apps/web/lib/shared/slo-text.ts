// SLO metrics in words: "rtt-p99-ms" reads "Round trip p99" wherever the dashboard shows one, including the
// sentences and reasons the API writes with metric ids (the ids stay in the API, the CLI and plan files).
import { sloMetricName, sloName, sloValueText, sloWords } from "@throng/protocol/slo-names";
import { instantsInWords } from "@throng/protocol/display-format";
import { formatDateTime, formatInteger, formatMs } from "./format";

/** "Round trip p99"; a script's metric by its own name (the names are the protocol's, shared with the report PDF). */
export const metricName = sloMetricName;
/** "Round trip p99, cohort mobile" for an SLO scoped to a network cohort. */
export { sloName };

const SLO_VALUE_FORMAT = {
  integer: formatInteger,
  ms: formatMs,
  percent: (ratio: number) => `${(ratio * 100).toLocaleString("en-US", { maximumFractionDigits: 2 })} %`,
};

/** Milliseconds for latency SLOs, percent for the 0..1 rates, a whole number for a script's counter. */
export const formatSloValue = (metric: string, value: number | null): string =>
  sloValueText(metric, value, SLO_VALUE_FORMAT);

/** Text from the API with its SLO metric ids and thresholds in words and units ("Round trip p99 below 50 ms"), its times in the reader's. */
export function sloText(text: string): string {
  return instantsInWords(sloWords(text, formatSloValue), formatDateTime);
}
