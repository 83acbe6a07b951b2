import type { MetricComparison } from "./baseline-compare";

/**
 * A round-trip p99 compared with its baseline: by default 30 ms against 20 ms, 50 % up past a 10 % allowance, so
 * regressed. What compareWithBaseline finds for such runs and the CLI's gate is handed; a test overrides the rest.
 */
export function p99Comparison(over: Partial<MetricComparison> = {}): MetricComparison {
  return {
    metric: "rtt-p99-ms",
    name: "Round trip p99",
    baseline: 20,
    value: 30,
    change: 50,
    unit: "%",
    withinNoise: false,
    allowance: 10,
    status: "regressed",
    ...over,
  };
}
