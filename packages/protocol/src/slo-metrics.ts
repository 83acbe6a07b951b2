// The SLO metrics, one entry each: its words, its unit, which plans measure it, how a second and a run read it, what
// "no data" means for it, and the chart its threshold is drawn on. Everything else derives from this table: the plan
// schema's list and its check (plan.ts), the judge (slo-judge.ts), the words and units (slo-names.ts), the dashboard's
// charts and plan form, the report PDF and both command lines. A new metric is one entry here; every place that must
// handle it is typed `Record<BuiltinSloMetric, …>` or switches exhaustively, so the compiler names what is missing.
import type { Scenario, Target } from "./plan";
import type { CohortSummary, RunSummary } from "./run";
import type { CohortPoint, LatencyName, SeriesPoint } from "./snapshot";
import { scriptSloId, scriptSloMetric, scriptValue, type ScriptStat } from "./script-metrics";

/** Milliseconds; a 0..1 ratio (stored as the fraction, shown and typed in the plan form as percent); a whole count. */
export type SloUnit = "ms" | "ratio" | "count";

/** The run page's chart a threshold is drawn on (the report PDF draws the same ones). */
export type SloChart = "rtt" | "latency" | "rates" | "script-latency";

/**
 * When a steady second without a value is a gap (too many gaps and the SLO has no data, slo-judge.ts): `sends`, a
 * second due enough sends; `clients`, a second with clients; `never`, for what comes only now and then (connects,
 * logins, a script's own metrics), judged over the whole only.
 */
export type SloGapRule = "sends" | "clients" | "never";

/** What decides which metrics a plan's runs measure: its scenario (what of it matters here), and its target's protocol. */
export interface SloPlan {
  scenario: SloScenario;
  target: { protocol: Target["protocol"] };
}

/** The parts of a scenario that decide what it measures; any Scenario is one (the plan form builds one from its draft). */
export interface SloScenario {
  kind: Scenario["kind"];
  login?: boolean | undefined;
  session?: readonly unknown[] | undefined;
  metrics?: readonly { name: string; kind: "histogram" | "counter" }[] | undefined;
}

/** What a second (SeriesPoint) and a run (RunSummary) both carry that the SLOs read, a cohort's as the whole's. */
export type SloFigures = Pick<
  SeriesPoint,
  "rttP50Ms" | "rttP99Ms" | "latency" | "lost" | "broadcastReach" | "script" | "scriptCounts"
>;

/** The figures of a second an SLO reads: the whole run's second (SeriesPoint) or one network cohort's (CohortPoint). */
export type SloSecond = SeriesPoint | CohortPoint;
/** The figures of a run (or a step) an SLO reads: the whole run's (RunSummary) or one network cohort's (CohortSummary). */
export type SloTotals = RunSummary | CohortSummary;

/** What a second and a run count apart: the error rate over what was attempted (null: nothing was), and the messages sent. */
export interface SloCounts {
  errorRate: number | null;
  sent: number;
}

export interface SloMetricSpec {
  /** "Round trip p99": how the dashboard, the PDF and the form name it (ids stay in the API, the CLI and plan files). */
  words: string;
  unit: SloUnit;
  /** Why runs of `plan` never measure it ("broadcast latency is measured only by …"), or null: the form offers it only then. */
  notMeasured(plan: SloPlan): string | null;
  /**
   * Where it is not measured, whether saving takes it all the same: plans saved before this table could name it
   * there (the older rule), and they must stay readable. Such an SLO is judged "no data" every run. Absent: refused.
   */
  stillAccepted?(plan: SloPlan): boolean;
  /** Its value over a second or a run; null where nothing measured it. */
  read(figures: SloFigures, counts: SloCounts): number | null;
  /** What "no data" means for it, in the verdict's words ("no round trip was measured"). */
  noData: string;
  gap: SloGapRule;
  /** Null: no per-second chart reads it (a script counter's threshold is on its running total). */
  chart: SloChart | null;
}

/** The scenarios whose clients send and time round trips (the others measure broadcasts, logins, the script's own). */
export const ROUND_TRIP_SCENARIOS: readonly Scenario["kind"][] = ["ping-pong", "echo-flood"];

/** Whether a login storm logs in (a session or the built-in login), rather than only connecting. */
export const logsIn = (scenario: SloScenario) =>
  scenario.kind === "login-storm" && (scenario.login === true || (scenario.session?.length ?? 0) > 0);

const p99 = (name: LatencyName) => (figures: SloFigures) => {
  const stats = figures.latency?.[name];
  return stats && stats.count > 0 ? stats.p99Ms : null;
};

const roundTrips = (plan: SloPlan) =>
  ROUND_TRIP_SCENARIOS.includes(plan.scenario.kind)
    ? null
    : "round trips are measured only by ping-pong and echo-flood plans";
/** Before this table, saving refused round trips only on a login storm. */
const notLoginStorm = (plan: SloPlan) => plan.scenario.kind !== "login-storm";

const TABLE = {
  "rtt-p50-ms": {
    words: "Round trip p50",
    unit: "ms",
    notMeasured: roundTrips,
    stillAccepted: notLoginStorm,
    read: (figures) => figures.rttP50Ms,
    noData: "no round trip was measured",
    gap: "sends",
    chart: "rtt",
  },
  "rtt-p99-ms": {
    words: "Round trip p99",
    unit: "ms",
    notMeasured: roundTrips,
    stillAccepted: notLoginStorm,
    read: (figures) => figures.rttP99Ms,
    noData: "no round trip was measured",
    gap: "sends",
    chart: "rtt",
  },
  "rtt-corrected-p99-ms": {
    words: "Round trip p99 (corrected)",
    unit: "ms",
    notMeasured: (plan) =>
      plan.scenario.kind === "ping-pong"
        ? null
        : "the corrected round trip is measured only by ping-pong plans (from each ping's intended send time)",
    stillAccepted: notLoginStorm,
    read: p99("rttCorrected"),
    noData: "no round trip was measured",
    gap: "sends",
    chart: "latency",
  },
  "broadcast-p99-ms": {
    words: "Broadcast p99",
    unit: "ms",
    notMeasured: (plan) =>
      plan.scenario.kind === "movement-sync" || plan.scenario.kind === "script"
        ? null
        : "broadcast latency is measured only by movement-sync and script plans",
    read: p99("broadcast"),
    noData: "no broadcast was received",
    gap: "sends",
    chart: "latency",
  },
  "connect-p99-ms": {
    words: "Connect p99",
    unit: "ms",
    notMeasured: () => null,
    read: p99("connect"),
    noData: "no connection was opened",
    gap: "never",
    chart: "latency",
  },
  "login-p99-ms": {
    words: "Login p99",
    unit: "ms",
    notMeasured: (plan) => {
      if (plan.scenario.kind !== "login-storm") return "login time is measured only by login-storm plans";
      return logsIn(plan.scenario)
        ? null
        : "this login storm only connects: set login: true or give session steps to time logins";
    },
    stillAccepted: (plan) => plan.scenario.kind === "login-storm",
    read: p99("login"),
    noData: "no login was answered",
    gap: "never",
    chart: "latency",
  },
  /** Errors and failed connections ÷ (messages sent + connections attempted). */
  "error-rate": {
    words: "Error rate",
    unit: "ratio",
    notMeasured: () => null,
    read: (_figures, counts) => counts.errorRate,
    noData: "nothing was attempted",
    gap: "clients",
    chart: "rates",
  },
  /** Movement-sync: 1 − reach (broadcasts received ÷ expected); UDP round trips: lost ÷ sent. */
  "loss-rate": {
    words: "Loss rate",
    unit: "ratio",
    notMeasured: (plan) => {
      const { kind } = plan.scenario;
      if (kind === "movement-sync" || (plan.target.protocol === "udp" && ROUND_TRIP_SCENARIOS.includes(kind)))
        return null;
      return "loss is measured only by movement-sync plans, and by ping-pong and echo-flood over UDP";
    },
    stillAccepted: (plan) => plan.target.protocol === "udp",
    // A loss rate over nothing delivered is no data, never 0.
    read: (figures, counts) =>
      figures.broadcastReach !== undefined && figures.broadcastReach !== null
        ? Math.max(0, 1 - figures.broadcastReach)
        : figures.lost !== undefined && counts.sent > 0
          ? Math.min(1, figures.lost / counts.sent)
          : null,
    noData: "nothing was expected to arrive",
    gap: "sends",
    chart: "rates",
  },
} satisfies Record<string, SloMetricSpec>;

/** The metrics the schema lists by name; a script's metrics ("script:NAME-p99") are named by the plan. */
export type BuiltinSloMetric = keyof typeof TABLE;
export type SloMetric = BuiltinSloMetric | `script:${string}`;
/** The built-in metrics of one unit: `Record<BuiltinSloMetricOf<"ratio">, …>` must name every rate. */
export type BuiltinSloMetricOf<U extends SloUnit> = {
  [K in BuiltinSloMetric]: (typeof TABLE)[K]["unit"] extends U ? K : never;
}[BuiltinSloMetric];

/** The built-in metrics, keyed by id. */
export const SLO_METRICS: Readonly<Record<BuiltinSloMetric, SloMetricSpec>> = TABLE;

/** In the table's order: the schema's list, the form's choices. */
export const BUILTIN_SLO_METRICS = Object.keys(SLO_METRICS) as [BuiltinSloMetric, ...BuiltinSloMetric[]];

const isBuiltin = (metric: string): metric is BuiltinSloMetric => Object.hasOwn(SLO_METRICS, metric);

function scriptMetricSpec(name: string, stat: ScriptStat): SloMetricSpec {
  const wanted = stat === "count" ? "counter" : "histogram";
  return {
    words: `${name} ${stat} (script)`,
    unit: stat === "count" ? "count" : "ms",
    notMeasured(plan) {
      if (plan.scenario.kind !== "script") return "a script's metrics are measured only by script plans";
      const declared = plan.scenario.metrics?.find((m) => m.name === name);
      if (!declared)
        return `the plan declares no script metric "${name}": add { name: "${name}", kind: "${wanted}" } to scenario.metrics`;
      return declared.kind === wanted ? null : `"${name}" is declared a ${declared.kind}; -${stat} needs a ${wanted}`;
    },
    read: (figures) => scriptValue(figures, name, stat),
    noData:
      stat === "count"
        ? `the script never reported its "${name}" counter`
        : `the script recorded no "${name}" measurement`,
    gap: "never",
    chart: stat === "count" ? null : "script-latency",
  };
}

/** A metric's entry: a built-in one's, or a script metric's made from its id; undefined for a string that is neither. */
export function sloMetricSpec(metric: string): SloMetricSpec | undefined {
  if (isBuiltin(metric)) return SLO_METRICS[metric];
  const script = scriptSloMetric(metric);
  return script ? scriptMetricSpec(script.name, script.stat) : undefined;
}

/** A value or threshold as its chart reads it: a ratio in percent, the rest as they are. */
export function inChartUnit(metric: string, value: number): number {
  return sloMetricSpec(metric)?.unit === "ratio" ? value * 100 : value;
}

/** The counts of one second (the whole's or a cohort's): its errors over the sends and connections it attempted. */
export function sloCountsOfSecond(point: SloSecond): SloCounts {
  const attempts = point.messagesSentPerSec + point.connections;
  return { errorRate: attempts > 0 ? Math.min(1, point.errors / attempts) : null, sent: point.messagesSentPerSec };
}

/** The counts of a run or a step (the whole's or a cohort's): its errors and failed connections over every send and connection attempted. */
export function sloCountsOfSummary(summary: SloTotals): SloCounts {
  const failed = summary.errors + summary.connectionsFailed;
  const attempts =
    summary.messagesSent + (summary.connectionsOpened ?? summary.peakConnections) + summary.connectionsFailed;
  return { errorRate: attempts > 0 ? Math.min(1, failed / attempts) : null, sent: summary.messagesSent };
}

/**
 * The figures an SLO reads in a second: the whole second's, or, for an SLO scoped to a network cohort (Slo.cohort),
 * that cohort's own; undefined where the second does not carry the cohort (its clients measured nothing).
 */
export function sloSecond(point: SeriesPoint, cohort: string | undefined): SloSecond | undefined {
  return cohort === undefined ? point : point.cohorts?.[cohort];
}

/** The figures an SLO reads in a run or a step: the whole's, or its network cohort's own (undefined: none carried). */
export function sloTotals(summary: RunSummary, cohort: string | undefined): SloTotals | undefined {
  return cohort === undefined ? summary : summary.cohorts?.[cohort];
}

/** `metric`'s value in one second's figures (sloSecond); null where nothing measured it, or a metric no entry names. */
export function sloValueOfSecond(metric: string, second: SloSecond | undefined): number | null {
  return second ? (sloMetricSpec(metric)?.read(second, sloCountsOfSecond(second)) ?? null) : null;
}

/** `metric`'s value over a run's or a step's figures (sloTotals); null where nothing measured it. */
export function sloValueOfTotals(metric: string, totals: SloTotals | undefined): number | null {
  return totals ? (sloMetricSpec(metric)?.read(totals, sloCountsOfSummary(totals)) ?? null) : null;
}

/** A latency SLO's figure alone (no counts needed): a scenario's headline figure reads it (scenario-metrics.ts). */
export function sloFigure(metric: BuiltinSloMetricOf<"ms">): (figures: SloFigures) => number | null {
  return (figures) => SLO_METRICS[metric].read(figures, { errorRate: null, sent: 0 });
}

/** A metric `plan` names that its runs never measure: why, and whether saving refuses it (else it is judged "no data"). */
export function sloMetricProblem(metric: string, plan: SloPlan): { message: string; refused: boolean } | null {
  const spec = sloMetricSpec(metric);
  const message = spec?.notMeasured(plan);
  if (!spec || !message) return null;
  return { message, refused: !(spec.stillAccepted?.(plan) ?? false) };
}

/** Every metric a plan's runs measure, as its SLO could name it: the built-in ones in the table's order, then the script's declared ones. */
export function measuredSloMetrics(plan: SloPlan): SloMetric[] {
  const builtin = BUILTIN_SLO_METRICS.filter((metric) => SLO_METRICS[metric].notMeasured(plan) === null);
  if (plan.scenario.kind !== "script") return builtin;
  const script = (plan.scenario.metrics ?? []).flatMap((m) =>
    m.kind === "histogram" ? [scriptSloId(m.name, "p50"), scriptSloId(m.name, "p99")] : [scriptSloId(m.name, "count")],
  );
  return [...script, ...builtin];
}

/** The SLOs on a scenario's own figure (scenario-metrics.ts), in the order a new SLO prefers them. */
const OWN_FIGURE: Record<Scenario["kind"], readonly BuiltinSloMetric[]> = {
  "ping-pong": ["rtt-p99-ms"],
  "echo-flood": ["rtt-p99-ms"],
  "movement-sync": ["broadcast-p99-ms"],
  "login-storm": ["login-p99-ms", "connect-p99-ms"],
  script: ["connect-p99-ms"],
};

/** The metric a plan's new SLO starts as: a script's first declared metric (its p99 or count), else its scenario's own figure. */
export function firstSloMetric(plan: SloPlan): SloMetric {
  const measured = measuredSloMetrics(plan);
  const script = measured.find((metric) => metric.startsWith("script:") && !metric.endsWith("-p50"));
  const own = (OWN_FIGURE[plan.scenario.kind] ?? []).find((metric) => measured.includes(metric));
  return script ?? own ?? measured[0] ?? "error-rate";
}
