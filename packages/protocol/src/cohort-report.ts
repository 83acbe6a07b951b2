// A run report's section per network cohort (plan.network, docs/networks.md), said the same way by the dashboard's
// report, the share page and the report PDF: the cohort's network as planned, how it was applied, and its own
// figures read from its totals exactly as the run's are (round trips, broadcasts and reach, errors, loss). Each
// reader brings its number formats; the SLO verdicts naming the cohort are each channel's own rows, filtered here.
import type { NetworkCohort } from "./network";
import type { CohortSummary, RunView } from "./run";
import type { SloVerdict } from "./report";
import { hasRoundTrips, scenarioMetrics, type ScenarioKind } from "./scenario-metrics";
import { measuredOfSummary } from "./slo-judge";
import type { NetworkPath } from "./snapshot";

/** The reader's formats a cohort section needs (the dashboard's and the PDF's). */
export interface CohortReportFormat {
  integer(value: number): string;
  /** A latency; null reads as not measured. */
  ms(value: number | null): string;
  /** A 0..1 ratio as percent; null reads as not measured. */
  percent(value: number | null): string;
  /** A plain number with at most `digits` decimals (a plan's percent or ms as written). */
  decimal(value: number, digits: number): string;
}

/** How a cohort's conditions reached its packets, in words (snapshot.ts NetworkPath). */
export const NETWORK_PATH_WORDS: Record<NetworkPath, string> = {
  datagram: "per datagram",
  kernel: "below TCP (kernel)",
  "above-stream": "above TCP",
};

/** Why "above TCP" is flagged wherever it is shown. */
export const ABOVE_STREAM_NOTE =
  "applied above TCP: TCP saw the rig's round trip, so it recovered from loss faster than on the network asked for";

const DIRECTION_WORDS = { up: "client to server only", down: "server to client only", both: "each way" } as const;

/** "30 % of the clients" or "12 clients": the cohort's size as the plan asks for it. */
export function cohortSizeText(cohort: Pick<NetworkCohort, "share" | "clients">, f: CohortReportFormat): string {
  if (cohort.clients !== undefined)
    return `${f.integer(cohort.clients)} ${cohort.clients === 1 ? "client" : "clients"}`;
  return `${f.percent(cohort.share ?? 0)} of the clients`;
}

/**
 * The cohort's network as planned, in one line: "delay 20 ms ± 5 ms, loss 10 %, 512 kbit/s, each way"; a cohort
 * that sets no condition says it has the rig's network.
 */
export function cohortConditionsText(cohort: NetworkCohort, f: CohortReportFormat): string {
  const pct = (value: number) => `${f.decimal(value, 2)} %`;
  const parts: string[] = [];
  if (cohort.delayMs)
    parts.push(
      `delay ${f.decimal(cohort.delayMs, 1)} ms${cohort.jitterMs ? ` ± ${f.decimal(cohort.jitterMs, 1)} ms` : ""}`,
    );
  else if (cohort.jitterMs) parts.push(`jitter ± ${f.decimal(cohort.jitterMs, 1)} ms`);
  if (cohort.lossPercent) parts.push(`loss ${pct(cohort.lossPercent)}`);
  if (cohort.duplicatePercent) parts.push(`duplicated ${pct(cohort.duplicatePercent)}`);
  if (cohort.reorderPercent) parts.push(`reordered ${pct(cohort.reorderPercent)}`);
  if (cohort.bandwidthKbps) parts.push(`${f.integer(cohort.bandwidthKbps)} kbit/s per client`);
  if (parts.length === 0) return "no conditions set: the rig's own network";
  return `${parts.join(", ")}, ${DIRECTION_WORDS[cohort.direction ?? "both"]}`;
}

export interface CohortFigure {
  /** Stable, for test ids: "rtt-p99", "broadcast-reach", "errors". */
  id: string;
  label: string;
  value: string;
}

/** One cohort's section of a report. */
export interface CohortSection {
  name: string;
  size: string;
  conditions: string;
  /** How its conditions were applied over the run; null when its clients measured nothing. */
  applied: string | null;
  /** True when they were applied above TCP (ABOVE_STREAM_NOTE says what that means). */
  aboveStream: boolean;
  /** Its own figures over the run; empty when nothing was measured for it. */
  figures: CohortFigure[];
  /** The verdicts of the SLOs that name this cohort. */
  slos: SloVerdict[];
}

function cohortFigures(run: RunView, name: string, totals: CohortSummary, f: CohortReportFormat): CohortFigure[] {
  const kind = run.spec.scenario.kind;
  const measured = run.summary ? measuredOfSummary(run.summary) : () => null;
  const figures: CohortFigure[] = [{ id: "clients", label: "Peak clients", value: f.integer(totals.peakClients) }];
  for (const metric of scenarioMetrics(kind)) {
    const value = metric.read(totals);
    figures.push({ id: metric.id, label: metric.label, value: metric.unit === "ms" ? f.ms(value) : f.percent(value) });
  }
  if (hasRoundTrips(kind)) {
    figures.push(
      { id: "rtt-p50", label: "Round trip p50", value: f.ms(totals.rttP50Ms) },
      { id: "rtt-p90", label: "Round trip p90", value: f.ms(totals.rttP90Ms ?? null) },
      { id: "rtt-p99", label: "Round trip p99", value: f.ms(totals.rttP99Ms) },
      { id: "rtt-max", label: "Round trip max", value: f.ms(totals.rttMaxMs) },
    );
  }
  figures.push(
    { id: "errors", label: "Errors", value: f.integer(totals.errors) },
    { id: "connections-failed", label: "Connections failed", value: f.integer(totals.connectionsFailed) },
    { id: "loss", label: "Lost of those expected", value: f.percent(measured("loss-rate", name)) },
  );
  const packets = totals.networkPackets ?? 0;
  if (packets > 0)
    figures.push({
      id: "dropped",
      label: "Packets dropped by its network",
      value: `${f.percent((totals.networkDropped ?? 0) / packets)} of ${f.integer(packets)}`,
    });
  if (totals.kcpRetransmits !== undefined)
    figures.push({ id: "retransmits", label: "KCP retransmissions", value: f.integer(totals.kcpRetransmits) });
  else if (totals.tcpRetransmits !== undefined)
    figures.push({ id: "retransmits", label: "TCP retransmissions", value: f.integer(totals.tcpRetransmits) });
  return figures;
}

/** A section per cohort of the run's plan, in the plan's order; none for a plan without cohorts. */
export function cohortSections(run: RunView, f: CohortReportFormat): CohortSection[] {
  return (run.spec.network ?? []).map((cohort) => {
    const totals = run.summary?.cohorts?.[cohort.name];
    return {
      name: cohort.name,
      size: cohortSizeText(cohort, f),
      conditions: cohortConditionsText(cohort, f),
      applied: totals ? NETWORK_PATH_WORDS[totals.applied] : null,
      aboveStream: totals?.applied === "above-stream",
      figures: totals ? cohortFigures(run, cohort.name, totals, f) : [],
      slos: (run.verdict?.slos ?? []).filter((slo) => slo.cohort === cohort.name),
    };
  });
}

type LatencyFigures = Pick<CohortSummary, "rttP50Ms" | "rttP99Ms" | "latency">;

/** The latency a cohort's chart draws: its round trips where the scenario makes them, else its broadcasts (movement-sync). */
export interface CohortLatency {
  /** "Round trip" or "Broadcast", as chart titles say it. */
  words: string;
  /** The SLO whose threshold belongs on its p99 line. */
  slo: "rtt-p99-ms" | "broadcast-p99-ms";
  /** The figure from a second's or a run's figures (a cohort's, or the whole run's); null when none was measured. */
  read(figures: LatencyFigures | undefined, stat?: "p50" | "p99"): number | null;
}

export function cohortLatencyRead(kind: ScenarioKind): CohortLatency | null {
  if (hasRoundTrips(kind))
    return {
      words: "Round trip",
      slo: "rtt-p99-ms",
      read: (figures, stat = "p99") => (figures ? (stat === "p50" ? figures.rttP50Ms : figures.rttP99Ms) : null),
    };
  if (kind !== "movement-sync") return null;
  return {
    words: "Broadcast",
    slo: "broadcast-p99-ms",
    read: (figures, stat = "p99") =>
      (stat === "p50" ? figures?.latency?.broadcast?.p50Ms : figures?.latency?.broadcast?.p99Ms) ?? null,
  };
}
