import { ThrongError } from "@throng/protocol/errors";
import type { PlanSpec, Slo } from "@throng/protocol/plan";
import type { RunVerdict, SloVerdict } from "@throng/protocol/report";
import type { RunSummary } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";

type Metric = Slo["metric"];

/** What an SLO can be judged on: one second (a SeriesPoint) or a whole run or step (a RunSummary). */
export type Measured = Pick<SeriesPoint, "rttP50Ms" | "rttP99Ms" | "latency" | "lost" | "broadcastReach"> & {
  /** Failed operations ÷ attempted operations, 0..1; null when nothing was attempted. */
  errorRate: number | null;
};

export function measuredOfPoint(point: SeriesPoint): Measured {
  const attempts = point.messagesSentPerSec + point.connections;
  return { ...point, errorRate: attempts > 0 ? Math.min(1, point.errors / attempts) : null };
}

export function measuredOfSummary(summary: RunSummary): Measured {
  const failed = summary.errors + summary.connectionsFailed;
  const attempts = summary.messagesSent + (summary.connectionsOpened ?? summary.peakConnections) + summary.connectionsFailed;
  return { ...summary, errorRate: attempts > 0 ? Math.min(1, failed / attempts) : null };
}

/** The metric's value, or null when this measurement has none (which fails the SLO: no silent pass). */
export function sloValue(metric: Metric, m: Measured): number | null {
  switch (metric) {
    case "rtt-p50-ms": return m.rttP50Ms;
    case "rtt-p99-ms": return m.rttP99Ms;
    case "rtt-corrected-p99-ms": return m.latency?.rttCorrected?.p99Ms ?? null;
    case "broadcast-p99-ms": return m.latency?.broadcast?.p99Ms ?? null;
    case "connect-p99-ms": return m.latency?.connect?.p99Ms ?? null;
    case "login-p99-ms": return m.latency?.login?.p99Ms ?? null;
    case "error-rate": return m.errorRate;
    case "loss-rate":
      if (m.broadcastReach !== undefined && m.broadcastReach !== null) return Math.max(0, 1 - m.broadcastReach);
      return m.lost === undefined ? null : m.lost;
  }
}

/** Why an SLO cannot apply to a plan (its scenario never measures it), or null. Checked when a plan is saved. */
export function sloProblem(metric: Metric, spec: PlanSpec): string | null {
  const kind = spec.scenario.kind;
  if (metric === "broadcast-p99-ms" && kind !== "movement-sync") return "broadcast latency is measured only by movement-sync plans";
  if (metric === "login-p99-ms" && kind !== "login-storm") return "login time is measured only by login-storm plans";
  if (metric === "loss-rate" && kind !== "movement-sync" && spec.target.protocol !== "udp") {
    return "loss is measured only over UDP or by movement-sync plans";
  }
  if ((metric === "rtt-p50-ms" || metric === "rtt-p99-ms" || metric === "rtt-corrected-p99-ms") && kind === "login-storm") {
    return "login-storm plans measure connect and login times, not round trips";
  }
  return null;
}

/** Refuses a plan whose SLOs name metrics its scenario never produces, naming each one. */
export function assertSlosApply(spec: PlanSpec): void {
  const fields = (spec.slos ?? []).flatMap((slo, i) => {
    const problem = sloProblem(slo.metric, spec);
    return problem ? [{ path: `slos.${i}.metric`, message: `${slo.metric}: ${problem}` }] : [];
  });
  if (fields.length) throw new ThrongError("validation_failed", `Invalid plan (${fields[0]!.path}: ${fields[0]!.message})`, fields);
}

/** Judges each SLO over the whole (run or step) and second by second. */
export function judgeSlos(slos: readonly Slo[], overall: Measured, seconds: readonly SeriesPoint[]): SloVerdict[] {
  return slos.map((slo) => {
    const value = sloValue(slo.metric, overall);
    let breachedSeconds = 0;
    let measuredSeconds = 0;
    let firstBreachAt: number | null = null;
    for (const point of seconds) {
      const v = sloValue(slo.metric, measuredOfPoint(point));
      if (v === null) continue;
      measuredSeconds += 1;
      if (v >= slo.below) {
        breachedSeconds += 1;
        firstBreachAt ??= point.t;
      }
    }
    return { metric: slo.metric, below: slo.below, value, passed: value !== null && value < slo.below, breachedSeconds, measuredSeconds, firstBreachAt };
  });
}

/** The run's verdict from its summary and series; null when the plan has no SLOs. */
export function runVerdict(slos: readonly Slo[] | undefined, summary: RunSummary, series: readonly SeriesPoint[]): RunVerdict | null {
  if (!slos?.length) return null;
  const verdicts = judgeSlos(slos, measuredOfSummary(summary), series);
  return { passed: verdicts.every((v) => v.passed), slos: verdicts };
}
