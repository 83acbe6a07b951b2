// What each scenario measures, in one place for the dashboard and the report PDF: whether its clients time round
// trips, whether the engine counts its messages, and the figures that lead its report (movement-sync: broadcast
// latency and reach; login-storm: connect and login times), so neither shows an empty round-trip chart.
import type { Scenario } from "./plan";
import type { RunSummary } from "./run";
import {
  logsIn,
  ROUND_TRIP_SCENARIOS,
  SLO_METRICS,
  sloFigure,
  type BuiltinSloMetricOf,
  type SloFigures,
} from "./slo-metrics";

export type ScenarioKind = Scenario["kind"];

/** Whether a scenario's clients send and time round trips (the others measure broadcasts, logins, the script's own). */
export function hasRoundTrips(kind: ScenarioKind): boolean {
  return ROUND_TRIP_SCENARIOS.includes(kind);
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
  slo?: BuiltinSloMetricOf<"ms">;
  /** The figure over a run (its summary) or one second (a series point); null when nothing was measured. */
  read(figures: SloFigures): number | null;
}

/** A figure an SLO reads: its words, unit and reading are the SLO's own (slo-metrics.ts). */
const sloMetric = (id: ScenarioMetric["id"], slo: BuiltinSloMetricOf<"ms">): ScenarioMetric => ({
  id,
  label: SLO_METRICS[slo].words,
  unit: "ms",
  slo,
  read: sloFigure(slo),
});

const BROADCAST_P99 = sloMetric("broadcast-p99", "broadcast-p99-ms");
const BROADCAST_REACH: ScenarioMetric = {
  id: "broadcast-reach",
  label: "Broadcast reach",
  unit: "ratio",
  read: (figures) => figures.broadcastReach ?? null,
};
const CONNECT_P99 = sloMetric("connect-p99", "connect-p99-ms");
const LOGIN_P99 = sloMetric("login-p99", "login-p99-ms");

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

/** What a run (or a step) measured that says whether its scenario's own figure measured anything. */
export type OwnFigureEvidence = Pick<
  RunSummary,
  | "peakClients"
  | "messagesSent"
  | "messagesReceived"
  | "rttP50Ms"
  | "roundTrips"
  | "latency"
  | "broadcastReach"
  | "loginsSucceeded"
  | "connectionsOpened"
  | "errorsByKind"
  | "script"
  | "scriptCounts"
>;

/** A scenario's own figure over a run: what the scenario exists to measure. */
export interface OwnFigure {
  /** In words, plural: "round trips", "broadcasts received", "logins", "script measurements". */
  name: string;
  /** How many were measured; null when the run expected none (a movement-sync run of one player: no one to hear it). */
  measured: number | null;
}

const sumOf = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);
const kindCount = (figures: OwnFigureEvidence, kind: string) => figures.errorsByKind?.[kind] ?? 0;

/**
 * Which figure is a scenario's own, the one rule every channel's verdict reads (run-verdict.ts): ping-pong and
 * echo-flood its round trips; movement-sync the broadcasts its players received (of two or more players: none
 * expected because no player sent an update is none measured too, its players never joined);
 * login-storm its logins that succeeded (its connections opened when it does not log in); a script its own
 * metrics: the samples of its ctx.measure histograms, its ctx.count totals and its ctx.broadcast receipts. A run
 * whose own figure measured nothing never passes, with or without SLOs.
 */
export function ownFigure(scenario: Scenario, figures: OwnFigureEvidence): OwnFigure {
  switch (scenario.kind) {
    case "ping-pong":
    case "echo-flood":
      return { name: "round trips", measured: figures.roundTrips ?? (figures.rttP50Ms === null ? 0 : 1) };
    case "movement-sync": {
      // One player alone has no one to hear it; two or more share a room (rooms fill in client order).
      if (figures.peakClients < 2) return { name: "broadcasts received", measured: null };
      const reach = figures.broadcastReach ?? 0;
      return { name: "broadcasts received", measured: figures.latency?.broadcast?.count ?? (reach > 0 ? 1 : 0) };
    }
    case "login-storm":
      return logsIn(scenario)
        ? { name: "logins", measured: figures.loginsSucceeded ?? 0 }
        : { name: "connections opened", measured: figures.connectionsOpened ?? 0 };
    case "script": {
      const samples =
        sumOf(Object.values(figures.script ?? {}).map((s) => s.count)) +
        sumOf(Object.values(figures.scriptCounts ?? {})) +
        (figures.latency?.broadcast?.count ?? 0);
      return { name: "script measurements (ctx.measure, ctx.count, ctx.broadcast)", measured: samples };
    }
  }
}

/** "5 messages" / "1 message". */
const messages = (n: number) => `${n} message${n === 1 ? "" : "s"}`;

/** What to check when replies arrived and none answered: per scenario, its matching rule in the plan's words. */
function unmatchedHint(scenario: Scenario, figures: OwnFigureEvidence): string | null {
  const received = figures.messagesReceived;
  const sessionFailed = ["session-timeout", "session-rejected", "session-capture"].reduce(
    (n, cause) => n + kindCount(figures, cause) + kindCount(figures, `login-${cause}`),
    0,
  );
  const hasSession = "session" in scenario && (scenario.session?.length ?? 0) > 0;
  if (sessionFailed > 0 && (hasSession || logsIn(scenario))) {
    const which = !hasSession
      ? "the built-in login's expect step (a JSON reply with type login-ok)"
      : "the session's expect step";
    return received > 0
      ? `received ${messages(received)}, none matched ${which} (${sessionFailed} sessions failed): check \`session\` (its expect \`reply\` and \`failWhen\`)`
      : `no reply arrived for ${which} (${sessionFailed} sessions failed)`;
  }
  const badReplies = kindCount(figures, "bad-reply");
  if (badReplies > 0) return `${badReplies} replies failed the plan's reply check: check \`reply\``;
  if (received === 0) return null;
  switch (scenario.kind) {
    case "ping-pong": {
      const rule = scenario.match
        ? `\`match\` (${scenario.match.by})`
        : 'the default match (a JSON reply {"type":"pong","seq":N})';
      return `received ${messages(received)}, none matched the ping's seq by ${rule}: check \`match\``;
    }
    case "echo-flood":
      return scenario.match
        ? `received ${messages(received)}, none matched an echo's seq by \`match\` (${scenario.match.by}): check \`match\``
        : null;
    case "movement-sync":
      // No broadcast expected: no player sent an update, so none joined its room.
      if (figures.broadcastReach === null || figures.broadcastReach === undefined) {
        return `received ${messages(received)} and no player sent an update: none joined its room${scenario.session?.length ? " (check `session`, the steps that join it)" : ' (the built-in join waits for {"type":"joined"}; give `session` steps for another server)'}`;
      }
      return `received ${messages(received)}, none was read as another player's broadcast${scenario.broadcast ? "" : ' (the built-in {"type":"move","client":C,"seq":N,"t":µs})'}: check \`broadcast\``;
    default:
      return null;
  }
}

/**
 * Why a scenario's own figure measured nothing, in words (with what to check when replies came and none matched);
 * null when it measured something, or when the run expected nothing of it.
 */
export function nothingMeasured(scenario: Scenario, figures: OwnFigureEvidence): string | null {
  const own = ownFigure(scenario, figures);
  if (own.measured === null || own.measured > 0) return null;
  const hint = unmatchedHint(scenario, figures);
  const whatWasDone =
    scenario.kind === "script"
      ? "the script recorded no metric at all"
      : `${messages(figures.messagesSent)} sent, ${messages(figures.messagesReceived)} received`;
  return `the ${scenario.kind} scenario measured no ${own.name}: ${whatWasDone}${hint ? `; ${hint}` : ""}`;
}
