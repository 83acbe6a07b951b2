// Judging SLOs over a whole run (or step) and second by second. Shared by the control plane (core), the
// standalone agent and the browser, so every channel says the same thing about the same evidence.
import type { Slo } from "./plan";
import type { SloVerdict } from "./report";
import type { RunSummary } from "./run";
import type { SeriesPoint } from "./snapshot";
import { scriptSloMetric } from "./script-metrics";
import {
  sloMetricSpec,
  sloSecond,
  sloTotals,
  sloValueOfSecond,
  sloValueOfTotals,
  type SloGapRule,
  type SloMetric,
  type SloMetricSpec,
  type SloSecond,
} from "./slo-metrics";

export type { SloMetric } from "./slo-metrics";

/**
 * Every SLO metric's value over one measurement (a second, a step, a run), of the whole or of one network cohort's
 * clients (Slo.cohort); null where nothing measured it.
 */
export type Measured = (metric: SloMetric, cohort?: string) => number | null;

/** Round trips or broadcasts a second must be due to carry before a second without any counts as a gap. */
const SENDS_THAT_MUST_MEASURE = 5;
/** More gap seconds than this share of the seconds under load (and more than one) and the SLO has no data. */
const GAP_SHARE = 0.1;

export function measuredOfPoint(point: SeriesPoint): Measured {
  return (metric, cohort) => sloValueOfSecond(metric, sloSecond(point, cohort));
}

export function measuredOfSummary(summary: RunSummary): Measured {
  return (metric, cohort) => sloValueOfTotals(metric, sloTotals(summary, cohort));
}

/**
 * Whether a second was due enough traffic that a missing value is a gap, not a quiet second: `second` is the whole
 * second's figures or, for a cohort's SLO, the cohort's (the traffic due to its clients).
 */
function mustMeasure(gap: SloGapRule, second: SloSecond): boolean {
  if (gap !== "never" && unattended(second)) return true;
  switch (gap) {
    case "never":
      return false;
    case "clients":
      return second.clients > 0;
    case "sends":
      return (
        (second.scheduledSends ?? second.messagesSentPerSec + (second.skippedSends ?? 0)) >= SENDS_THAT_MUST_MEASURE
      );
  }
}

/**
 * A steady second whose clients were all disconnected (the server died, or dropped them): it measured nothing
 * because nothing could be, which is no evidence of a met SLO. Such a second is due whatever its sends say (a client
 * with no connection schedules none), so it counts as a gap, never as a quiet second.
 */
function unattended(second: SloSecond): boolean {
  return second.clients > 0 && second.connections === 0;
}

/** A metric the schema would refuse reads nothing (the browser may judge what a plan file says). */
const UNKNOWN: Pick<SloMetricSpec, "noData" | "gap"> = { noData: "nothing measured it", gap: "never" };

/**
 * Judges each SLO over the whole (run or step) and second by second; an SLO scoped to a network cohort on that
 * cohort's own figures, in both. `steady` are the seconds under the planned load (no ramp, no closing partial
 * second): when too many of them lack a value that traffic was due to produce, the SLO has no data, whatever the
 * whole-run value says (a load that stopped must not pass on its first seconds).
 */
export function judgeSlos(
  slos: readonly Slo[],
  overall: Measured,
  seconds: readonly SeriesPoint[],
  steady: readonly SeriesPoint[] = [],
): SloVerdict[] {
  return slos.map((slo) => {
    const spec = sloMetricSpec(slo.metric) ?? UNKNOWN;
    const ofSecond = (point: SeriesPoint) => sloValueOfSecond(slo.metric, sloSecond(point, slo.cohort));
    const value = overall(slo.metric, slo.cohort);
    // A count's threshold is on its total: second by second, it is the running total that breaches.
    const runningTotal = scriptSloMetric(slo.metric)?.stat === "count";
    let total = 0;
    let breachedSeconds = 0;
    let measuredSeconds = 0;
    let firstBreachAt: number | null = null;
    for (const point of seconds) {
      let v = ofSecond(point);
      if (v === null) continue;
      if (runningTotal) v = total += v;
      measuredSeconds += 1;
      if (v >= slo.below) {
        breachedSeconds += 1;
        firstBreachAt ??= point.t;
      }
    }
    const due = steady.filter((point) => {
      const second = sloSecond(point, slo.cohort);
      return second !== undefined && mustMeasure(spec.gap, second);
    });
    const gaps = due.filter((point) => ofSecond(point) === null).length;
    const noData = slo.cohort === undefined ? spec.noData : `${spec.noData} for cohort "${slo.cohort}"`;
    const base = {
      metric: slo.metric,
      below: slo.below,
      ...(slo.cohort === undefined ? {} : { cohort: slo.cohort }),
      value,
      breachedSeconds,
      measuredSeconds,
      firstBreachAt,
    };
    if (value === null) return { ...base, status: "no-data" as const, passed: false, note: noData };
    if (value >= slo.below) return { ...base, status: "breached" as const, passed: false };
    if (gaps > 1 && gaps > due.length * GAP_SHARE) {
      const disconnected = due.filter(
        (point) => ofSecond(point) === null && unattended(sloSecond(point, slo.cohort)!),
      ).length;
      const note =
        disconnected === gaps
          ? `not judged for ${gaps} of ${due.length} s under load: no client was connected`
          : `${noData} in ${gaps} of ${due.length} seconds under load${disconnected > 0 ? ` (no client was connected in ${disconnected})` : ""}`;
      return { ...base, status: "no-data" as const, passed: false, note };
    }
    return { ...base, status: "met" as const, passed: true };
  });
}
