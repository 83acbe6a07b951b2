// Scenario-first run pages: a movement-sync run leads with broadcast latency and reach, a login storm with
// connect and login times, a script with its own timings; the round-trip chart and figures appear only for
// scenarios that make round trips (ping-pong, echo-flood), instead of standing there empty.
import type { Scenario } from "@throng/protocol/plan";
import type { RunSummary } from "@throng/protocol/run";
import { formatMs } from "./format";

export type ScenarioKind = Scenario["kind"];

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

const DEFAULT_ORDER: readonly ChartId[] = ["connections", "messages", "rtt", "bytes", "errors", "rates", "agents", "causes", "delivery", "script-latency", "script-counts", "latency"];

/** What each scenario is about, first. */
const LEADS: Record<ScenarioKind, readonly ChartId[]> = {
  "ping-pong": [],
  "echo-flood": [],
  "movement-sync": ["latency", "delivery"],
  "login-storm": ["latency", "connections", "errors"],
  script: ["script-latency", "script-counts"],
};

/** Whether a scenario's clients send and time round trips (the others measure broadcasts, logins, the script's own). */
export function hasRoundTrips(kind: ScenarioKind): boolean {
  return kind === "ping-pong" || kind === "echo-flood";
}

/**
 * Whether the engine counts a scenario's messages and bytes. A script's own sends and receives are not counted
 * (docs/protocols.md, Limits), so its message and byte charts and figures would read a true-looking 0.
 */
export function countsMessages(kind: ScenarioKind): boolean {
  return kind !== "script";
}

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

export interface SummaryCell {
  label: string;
  value: string;
  testId: string;
}

/** The scenario's own headline figures over the run: broadcast p99 and reach, connect and login p99. */
export function scenarioSummaryCells(kind: ScenarioKind, summary: RunSummary): SummaryCell[] {
  const p99 = (name: "broadcast" | "connect" | "login") => {
    const stats = summary.latency?.[name];
    return stats && stats.count > 0 ? stats.p99Ms : null;
  };
  if (kind === "movement-sync") {
    const reach = summary.broadcastReach;
    return [
      { label: "Broadcast p99", value: formatMs(p99("broadcast")), testId: "summary-broadcast-p99" },
      { label: "Broadcast reach", value: reach === null || reach === undefined ? "—" : `${(reach * 100).toLocaleString("en-US", { maximumFractionDigits: 1 })} %`, testId: "summary-broadcast-reach" },
    ];
  }
  if (kind === "login-storm") {
    return [
      { label: "Connect p99", value: formatMs(p99("connect")), testId: "summary-connect-p99" },
      { label: "Login p99", value: formatMs(p99("login")), testId: "summary-login-p99" },
    ];
  }
  return [];
}
