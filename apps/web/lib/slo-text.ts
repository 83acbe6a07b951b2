// SLO metrics in words: "rtt-p99-ms" reads "Round trip p99" wherever the dashboard shows one, including the
// sentences and reasons the API writes with metric ids (the ids stay in the API, the CLI and plan files).
import { scriptSloMetric } from "@throng/protocol/slo-judge";
import { formatInteger, formatMs } from "./format";

const METRIC_NAMES: Record<string, string> = {
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
export function metricName(metric: string): string {
  const script = scriptSloMetric(metric);
  if (script) return `${script.name} ${script.stat} (script)`;
  return METRIC_NAMES[metric] ?? metric;
}

/** Milliseconds for latency SLOs, percent for the 0..1 rates, a whole number for a script's counter. */
export function formatSloValue(metric: string, value: number | null): string {
  if (value === null) return "not measured";
  if (scriptSloMetric(metric)?.stat === "count") return formatInteger(value);
  if (metric.endsWith("-rate")) return `${(value * 100).toLocaleString("en-US", { maximumFractionDigits: 2 })} %`;
  return formatMs(value);
}

const BUILTIN = Object.keys(METRIC_NAMES).join("|");
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
