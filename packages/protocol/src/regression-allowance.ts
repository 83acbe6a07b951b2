// How much worse than its baseline a run may be (`throng run --max-regression p99=10%,error-rate=0.5pp`). Latencies
// and a script's figures change in percent of the baseline; rates (error-rate, loss-rate) in percentage points, since
// a percent of a baseline error rate of 0 means nothing.
import { sloMetricSpec } from "./slo-metrics";

/** How a metric's change is said: percent of the baseline's figure, or percentage points of a 0..1 rate. */
export type ChangeUnit = "%" | "pp";

/** One metric's allowance: its SLO metric id and how far it may get worse, in its unit. */
export interface RegressionAllowance {
  metric: string;
  limit: number;
  unit: ChangeUnit;
}

/** Short names a CI line reads better with; each SLO metric id is accepted as well. */
export const REGRESSION_ALIASES: Readonly<Record<string, string>> = {
  p50: "rtt-p50-ms",
  p99: "rtt-p99-ms",
  "corrected-p99": "rtt-corrected-p99-ms",
  "broadcast-p99": "broadcast-p99-ms",
  "connect-p99": "connect-p99-ms",
  "login-p99": "login-p99-ms",
};

/** A rate's change (a ratio in the metric registry) is in percentage points; every other metric's in percent. */
export function changeUnitOf(metric: string): ChangeUnit {
  return sloMetricSpec(metric)?.unit === "ratio" ? "pp" : "%";
}

function metricOf(name: string): string | null {
  const alias = REGRESSION_ALIASES[name];
  if (alias) return alias;
  if (sloMetricSpec(name)) return name;
  return null;
}

const KNOWN = `${Object.keys(REGRESSION_ALIASES).join(", ")}, error-rate, loss-rate, an SLO metric id (rtt-p99-ms) or script:NAME-p99`;

/**
 * Reads "p99=10%,error-rate=0.5pp" into allowances, or says what is wrong with the first bad part (the caller puts
 * its flag in front): an unknown metric, a missing or wrong unit, a negative limit, a metric named twice.
 */
export function parseRegressionAllowances(text: string): { allowances: RegressionAllowance[] } | { error: string } {
  const parts = text.split(",").map((part) => part.trim());
  if (parts.every((part) => part === ""))
    return { error: "give at least one metric=limit, e.g. p99=10%,error-rate=0.5pp" };
  const allowances: RegressionAllowance[] = [];
  for (const part of parts) {
    const match = /^([a-z0-9:-]+)\s*=\s*(\d+(?:\.\d+)?)\s*(%|pp)?$/i.exec(part);
    if (!match) return { error: `"${part}" is not metric=limit: write e.g. p99=10% or error-rate=0.5pp` };
    const [, name, number, unit] = match as unknown as [string, string, string, string | undefined];
    const metric = metricOf(name.toLowerCase());
    if (!metric) return { error: `"${name}" is not a metric that can be held to a baseline: use ${KNOWN}` };
    const expected = changeUnitOf(metric);
    if (unit?.toLowerCase() !== expected) {
      return {
        error:
          expected === "pp"
            ? `${name} is a rate: give its allowance in percentage points, e.g. ${name}=0.5pp (half a point more errors than the baseline)`
            : `${name} changes in percent of the baseline: give e.g. ${name}=10%`,
      };
    }
    if (allowances.some((allowance) => allowance.metric === metric))
      return { error: `${name} is given twice: give each metric once` };
    allowances.push({ metric, limit: Number(number), unit: expected });
  }
  return { allowances };
}

/** "p99=10%"-style text of allowances, for the output that repeats what the run was held to. */
export function allowanceText(allowance: RegressionAllowance): string {
  return `${allowance.limit}${allowance.unit === "pp" ? " pp" : "%"}`;
}
