// Scenario-first run pages: a movement-sync run leads with broadcast latency and reach, a login storm with
// connect and login times, a script with its own timings; the round-trip chart and figures appear only for
// scenarios that make round trips (ping-pong, echo-flood), instead of standing there empty. What each scenario
// measures is the protocol's (scenario-metrics.ts), shared with the report PDF; the chart order is the page's.
import type { RunSummary } from "@throng/protocol/run";
import { countsMessages, hasRoundTrips, scenarioMetrics, type ScenarioKind } from "@throng/protocol/scenario-metrics";
import { formatMs, formatPercent } from "../shared/format";

export { countsMessages, hasRoundTrips, type ScenarioKind };

/** The run page's load charts, by name. */
export type ChartId =
  | "connections"
  | "messages"
  | "rtt"
  | "bytes"
  | "errors"
  | "rates"
  | "agents"
  | "causes"
  | "delivery"
  | "script-latency"
  | "script-counts"
  | "latency";

const DEFAULT_ORDER: readonly ChartId[] = [
  "connections",
  "messages",
  "rtt",
  "bytes",
  "errors",
  "rates",
  "agents",
  "causes",
  "delivery",
  "script-latency",
  "script-counts",
  "latency",
];

/** What each scenario is about, first. */
const LEADS: Record<ScenarioKind, readonly ChartId[]> = {
  "ping-pong": [],
  "echo-flood": [],
  "movement-sync": ["latency", "delivery"],
  "login-storm": ["latency", "connections", "errors"],
  script: ["script-latency", "script-counts"],
};

/**
 * The charts in the order the run page shows them for `kind`: its leads, then the rest; no round trips, no RTT
 * chart; no counted messages, no message or byte chart.
 */
export function chartOrder(kind: ScenarioKind): ChartId[] {
  const leads = LEADS[kind];
  return [...leads, ...DEFAULT_ORDER.filter((id) => !leads.includes(id))]
    .filter((id) => id !== "rtt" || hasRoundTrips(kind))
    .filter((id) => (id !== "messages" && id !== "bytes") || countsMessages(kind));
}

/** A 0..1 ratio (broadcast reach) as percent, one decimal: "98.7 %"; "—" for nothing. */
export function formatRatioPercent(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : formatPercent(value, 1);
}

export interface SummaryCell {
  label: string;
  value: string;
  testId: string;
}

/** The scenario's own headline figures over the run: broadcast p99 and reach, connect and login p99. */
export function scenarioSummaryCells(kind: ScenarioKind, summary: RunSummary): SummaryCell[] {
  return scenarioMetrics(kind).map((metric) => {
    const value = metric.read(summary);
    return {
      label: metric.label,
      value: metric.unit === "ms" ? formatMs(value) : formatRatioPercent(value),
      testId: `summary-${metric.id}`,
    };
  });
}
