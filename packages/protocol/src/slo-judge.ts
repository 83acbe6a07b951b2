// Judging SLOs over a whole run (or step) and second by second. Shared by the control plane (core), the
// standalone agent and the browser, so every channel says the same thing about the same evidence.
import type { Slo } from "./plan";
import type { SloVerdict } from "./report";
import type { RunSummary } from "./run";
import type { SeriesPoint } from "./snapshot";
import { scriptValue } from "./script-metrics";

export type SloMetric = Slo["metric"];
/** The metrics named by the schema's list; a script's metrics ("script:NAME-p99") are named by the plan. */
type BuiltinMetric = Exclude<SloMetric, `script:${string}`>;

/** A script metric's SLO: the histogram ("p50", "p99") or counter ("count") it reads; null for any other metric. */
export function scriptSloMetric(metric: string): { name: string; stat: "p50" | "p99" | "count" } | null {
  const match = /^script:([a-z][a-z0-9-]{0,40})-(p50|p99|count)$/.exec(metric);
  return match ? { name: match[1]!, stat: match[2] as "p50" | "p99" | "count" } : null;
}

/**
 * Every SLO metric's value over one measurement (a second, a step, a run), of the whole or of one network cohort's
 * clients (Slo.cohort); null where nothing measured it.
 */
export type Measured = (metric: SloMetric, cohort?: string) => number | null;

/** Round trips or broadcasts a second must be due to carry before a second without any counts as a gap. */
const SENDS_THAT_MUST_MEASURE = 5;
/** More gap seconds than this share of the seconds under load (and more than one) and the SLO has no data. */
const GAP_SHARE = 0.1;

type Figures = Pick<SeriesPoint, "rttP50Ms" | "rttP99Ms" | "latency" | "lost" | "broadcastReach" | "script" | "scriptCounts">;

function measured(figures: Figures, errorRate: number | null, sent: number): (metric: SloMetric) => number | null {
  const latency = figures.latency;
  // A loss rate over nothing delivered is no data, never 0: movement-sync by reach, UDP by lost ÷ sent.
  const lossRate = figures.broadcastReach !== undefined && figures.broadcastReach !== null
    ? Math.max(0, 1 - figures.broadcastReach)
    : figures.lost !== undefined && sent > 0 ? Math.min(1, figures.lost / sent) : null;
  const p99 = (stats: { count: number; p99Ms: number | null } | undefined) => (stats && stats.count > 0 ? stats.p99Ms : null);
  const builtin: Record<BuiltinMetric, number | null> = {
    "rtt-p50-ms": figures.rttP50Ms,
    "rtt-p99-ms": figures.rttP99Ms,
    "rtt-corrected-p99-ms": p99(latency?.rttCorrected),
    "broadcast-p99-ms": p99(latency?.broadcast),
    "connect-p99-ms": p99(latency?.connect),
    "login-p99-ms": p99(latency?.login),
    "error-rate": errorRate,
    "loss-rate": lossRate,
  };
  return (metric) => {
    const script = scriptSloMetric(metric);
    return script ? scriptValue(figures, script.name, script.stat) : builtin[metric as BuiltinMetric];
  };
}

type SecondFigures = Figures & Pick<SeriesPoint, "messagesSentPerSec" | "connections" | "errors">;
type TotalFigures = Figures & Pick<RunSummary, "errors" | "connectionsFailed" | "messagesSent" | "connectionsOpened" | "peakConnections">;

function measuredOfSecond(point: SecondFigures) {
  const attempts = point.messagesSentPerSec + point.connections;
  return measured(point, attempts > 0 ? Math.min(1, point.errors / attempts) : null, point.messagesSentPerSec);
}

function measuredOfTotals(summary: TotalFigures) {
  const failed = summary.errors + summary.connectionsFailed;
  const attempts = summary.messagesSent + (summary.connectionsOpened ?? summary.peakConnections) + summary.connectionsFailed;
  return measured(summary, attempts > 0 ? Math.min(1, failed / attempts) : null, summary.messagesSent);
}

/** A cohort's SLO reads the cohort's own figures (a cohort the measurement does not carry measured nothing). */
function byCohort<T>(whole: T, cohorts: Record<string, T> | undefined, of: (figures: T) => (metric: SloMetric) => number | null): Measured {
  return (metric, cohort) => {
    if (cohort === undefined) return of(whole)(metric);
    const part = cohorts?.[cohort];
    return part ? of(part)(metric) : null;
  };
}

export function measuredOfPoint(point: SeriesPoint): Measured {
  return byCohort<SecondFigures>(point, point.cohorts, measuredOfSecond);
}

export function measuredOfSummary(summary: RunSummary): Measured {
  return byCohort<TotalFigures>(summary, summary.cohorts, measuredOfTotals);
}

/**
 * Metrics a second under load always measures; connect and login times come only when clients connect or log in,
 * and a script's metrics when its code says (so they are judged over the whole only, never as gaps).
 */
const MEASURED_EVERY_SECOND: ReadonlySet<SloMetric> = new Set(["rtt-p50-ms", "rtt-p99-ms", "rtt-corrected-p99-ms", "broadcast-p99-ms", "error-rate", "loss-rate"]);

/**
 * Whether second `point` was due enough traffic that a missing value for `metric` is a gap, not a quiet second; for a
 * cohort's SLO, the traffic due to the cohort's clients.
 */
function mustMeasure(metric: SloMetric, whole: SeriesPoint, cohort: string | undefined): boolean {
  if (!MEASURED_EVERY_SECOND.has(metric)) return false;
  const point = cohort === undefined ? whole : whole.cohorts?.[cohort];
  if (!point) return false;
  if (metric === "error-rate") return point.clients > 0;
  const due = point.scheduledSends ?? point.messagesSentPerSec + (point.skippedSends ?? 0);
  return due >= SENDS_THAT_MUST_MEASURE;
}

const NO_DATA_NOTE: Record<BuiltinMetric, string> = {
  "rtt-p50-ms": "no round trip was measured",
  "rtt-p99-ms": "no round trip was measured",
  "rtt-corrected-p99-ms": "no round trip was measured",
  "broadcast-p99-ms": "no broadcast was received",
  "connect-p99-ms": "no connection was opened",
  "login-p99-ms": "no login was answered",
  "error-rate": "nothing was attempted",
  "loss-rate": "nothing was expected to arrive",
};

function noDataNote(metric: SloMetric, cohort: string | undefined): string {
  const script = scriptSloMetric(metric);
  const note = !script
    ? NO_DATA_NOTE[metric as BuiltinMetric]
    : script.stat === "count" ? `the script never reported its "${script.name}" counter` : `the script recorded no "${script.name}" measurement`;
  return cohort === undefined ? note : `${note} for cohort "${cohort}"`;
}

/**
 * Judges each SLO over the whole (run or step) and second by second. `steady` are the seconds under the planned
 * load (no ramp, no closing partial second): when too many of them lack a value that traffic was due to produce,
 * the SLO has no data, whatever the whole-run value says (a load that stopped must not pass on its first seconds).
 */
export function judgeSlos(slos: readonly Slo[], overall: Measured, seconds: readonly SeriesPoint[], steady: readonly SeriesPoint[] = []): SloVerdict[] {
  return slos.map((slo) => {
    const value = overall(slo.metric, slo.cohort);
    // A count's threshold is on its total: second by second, it is the running total that breaches.
    const runningTotal = scriptSloMetric(slo.metric)?.stat === "count";
    let total = 0;
    let breachedSeconds = 0;
    let measuredSeconds = 0;
    let firstBreachAt: number | null = null;
    for (const point of seconds) {
      let v = measuredOfPoint(point)(slo.metric, slo.cohort);
      if (v === null) continue;
      if (runningTotal) v = total += v;
      measuredSeconds += 1;
      if (v >= slo.below) {
        breachedSeconds += 1;
        firstBreachAt ??= point.t;
      }
    }
    const due = steady.filter((point) => mustMeasure(slo.metric, point, slo.cohort));
    const gaps = due.filter((point) => measuredOfPoint(point)(slo.metric, slo.cohort) === null).length;
    const scope = slo.cohort === undefined ? {} : { cohort: slo.cohort };
    const base = { metric: slo.metric, below: slo.below, ...scope, value, breachedSeconds, measuredSeconds, firstBreachAt };
    if (value === null) return { ...base, status: "no-data" as const, passed: false, note: noDataNote(slo.metric, slo.cohort) };
    if (value >= slo.below) return { ...base, status: "breached" as const, passed: false };
    if (gaps > 1 && gaps > due.length * GAP_SHARE) {
      const note = `${noDataNote(slo.metric, slo.cohort)} in ${gaps} of ${due.length} seconds under load`;
      return { ...base, status: "no-data" as const, passed: false, note };
    }
    return { ...base, status: "met" as const, passed: true };
  });
}
