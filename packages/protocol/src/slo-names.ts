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
