// What each scenario measures, in one place for the dashboard and the report PDF: whether its clients time round
// trips, whether the engine counts its messages, and the figures that lead its report (movement-sync: broadcast
// latency and reach; login-storm: connect and login times), so neither shows an empty round-trip chart.
import type { Scenario } from "./plan";
import type { LatencyName, ScenarioFigures } from "./snapshot";
import type { z } from "zod";

export type ScenarioKind = Scenario["kind"];

/** The figures a scenario-measuring second (SeriesPoint) and a run (RunSummary) both carry. */
type Figures = z.infer<typeof ScenarioFigures>;

/** Whether a scenario's clients send and time round trips (the others measure broadcasts, logins, the script's own). */
export function hasRoundTrips(kind: ScenarioKind): boolean {
  return kind === "ping-pong" || kind === "echo-flood";
}

/**
 * Whether the engine counts a scenario's messages and bytes. A script's own sends and receives are not counted
 * (docs/protocols.md, Limits), so its message and byte figures would read a true-looking 0.
 */
export function countsMessages(kind: ScenarioKind): boolean {
  return kind !== "script";
}

/** One of a scenario's own headline figures. */
export interface ScenarioMetric {
  /** "broadcast-p99": stable, for test ids. */
  id: "broadcast-p99" | "broadcast-reach" | "connect-p99" | "login-p99";
  /** "Broadcast p99", as the summary, the sentence and the PDF name it. */
  label: string;
  /** Milliseconds, or a 0..1 ratio shown as percent. */
  unit: "ms" | "ratio";
  /** The SLO whose threshold belongs on this figure's chart. */
  slo?: string;
  /** The figure over a run (its summary) or one second (a series point); null when nothing was measured. */
  read(figures: Figures): number | null;
}

const p99 = (name: LatencyName) => (figures: Figures) => {
  const stats = figures.latency?.[name];
  return stats && stats.count > 0 ? stats.p99Ms : null;
};

const BROADCAST_P99: ScenarioMetric = { id: "broadcast-p99", label: "Broadcast p99", unit: "ms", slo: "broadcast-p99-ms", read: p99("broadcast") };
const BROADCAST_REACH: ScenarioMetric = { id: "broadcast-reach", label: "Broadcast reach", unit: "ratio", read: (figures) => figures.broadcastReach ?? null };
const CONNECT_P99: ScenarioMetric = { id: "connect-p99", label: "Connect p99", unit: "ms", slo: "connect-p99-ms", read: p99("connect") };
const LOGIN_P99: ScenarioMetric = { id: "login-p99", label: "Login p99", unit: "ms", slo: "login-p99-ms", read: p99("login") };

const METRICS: Record<ScenarioKind, readonly ScenarioMetric[]> = {
  "ping-pong": [],
  "echo-flood": [],
  "movement-sync": [BROADCAST_P99, BROADCAST_REACH],
  "login-storm": [CONNECT_P99, LOGIN_P99],
  script: [],
};

/** The scenario's own headline figures, in the order a report leads with them; none for the round-trip scenarios. */
export function scenarioMetrics(kind: ScenarioKind): readonly ScenarioMetric[] {
  return METRICS[kind];
}
