// A plan's trend: each ended run as one point over time (its p99, error rate, throughput and capacity estimate),
// marked by whether its verdict passed, like k6's performance trending. Read from the runs' stored summaries.
import { niceTicks } from "@throng/protocol/chart-ticks";
import type { ReaderPlace } from "@throng/protocol/display-format";
import type { Slo } from "@throng/protocol/plan";
import type { RunView } from "@throng/protocol/run";
import { measuredOfSummary } from "@throng/protocol/slo-judge";
import { THRESHOLD_STRETCH } from "../charts/chart-range";
import { formatSloValue, metricName } from "../shared/slo-text";
import { shortId } from "../shared/format";

export interface TrendRun {
  runId: string;
  /** Epoch seconds the run started (created, when it never started). */
  t: number;
  p99Ms: number | null;
  /** 0..1, as the error-rate SLO measures it. */
  errorRate: number | null;
  messagesPerSec: number | null;
  /** A step-up run's capacity estimate in clients. */
  estimate: number | null;
  /** null: the run has no verdict (from before verdicts were kept). */
  passed: boolean | null;
}

export interface TrendFigure {
  key: "p99Ms" | "errorRate" | "messagesPerSec" | "estimate";
  title: string;
  unit: "ms" | "percent" | "count";
  value: (run: TrendRun) => number | null;
}

export const TREND_FIGURES: readonly TrendFigure[] = [
  { key: "p99Ms", title: "RTT p99", unit: "ms", value: (run) => run.p99Ms },
  { key: "errorRate", title: "Error rate", unit: "percent", value: (run) => run.errorRate },
  { key: "messagesPerSec", title: "Messages/s", unit: "count", value: (run) => run.messagesPerSec },
  { key: "estimate", title: "Capacity estimate (clients)", unit: "count", value: (run) => run.estimate },
];

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The runs that ended with a summary, oldest first (the API answers newest first); one point each. */
export function trendRuns(runs: readonly RunView[]): TrendRun[] {
  return runs
    .filter((run) => run.summary !== null && run.endedAt !== null)
    .map((run) => ({
      runId: run.id,
      t: epochSeconds(run.startedAt ?? run.createdAt),
      p99Ms: run.summary!.rttP99Ms,
      errorRate: measuredOfSummary(run.summary!)("error-rate"),
      messagesPerSec: run.summary!.messagesPerSec,
      estimate: run.capacity?.clients ?? null,
      passed: run.verdict ? (run.verdict.outcome ? run.verdict.outcome === "passed" : run.verdict.passed) : null,
    }))
    .sort((a, b) => a.t - b.t);
}

/** uPlot's columns for one figure: x the runs' start times, y the figure (null where a run has none). */
export function trendColumns(runs: readonly TrendRun[], figure: TrendFigure): [number[], (number | null)[]] {
  return [runs.map((run) => run.t), runs.map(figure.value)];
}

const HOUR = 3600;

/**
 * The x range around the runs, with a margin so the first and last points are not on the frame. One run alone has
 * no span: an hour either side of it, not uPlot's default (which drew a lone run between 1970 and 2033).
 */
export function trendTimeRange(runs: readonly Pick<TrendRun, "t">[]): [number, number] {
  if (runs.length === 0) return [0, 1];
  const min = Math.min(...runs.map((run) => run.t));
  const max = Math.max(...runs.map((run) => run.t));
  const margin = max > min ? (max - min) * 0.05 : HOUR;
  return [min - margin, max + margin];
}

/** The SLO metric a trend figure is judged by, where it has one, in the figure's own unit (ms; a 0..1 rate). */
const FIGURE_SLOS: Partial<Record<TrendFigure["key"], string>> = { p99Ms: "rtt-p99-ms", errorRate: "error-rate" };

/** The plan's SLO on this figure as a line to draw: its value and words ("SLO: Round trip p99 < 50 ms"); null without one. */
export function trendThreshold(
  figure: Pick<TrendFigure, "key">,
  slos: readonly Slo[] | undefined,
): { value: number; label: string } | null {
  const metric = FIGURE_SLOS[figure.key];
  const slo = metric ? slos?.find((candidate) => candidate.metric === metric) : undefined;
  return slo
    ? { value: slo.below, label: `SLO: ${metricName(slo.metric)} < ${formatSloValue(slo.metric, slo.below)}` }
    : null;
}

/**
 * The y axis's ticks: round steps from 0 to the first at or above the highest run, so every point is under a labelled
 * tick, and the SLO's too when it is near the runs (as on a run's charts: a 2,000 ms SLO over 9 ms runs would flatten
 * them onto the floor, and is said at the top instead).
 */
export function trendYTicks(
  values: readonly (number | null)[],
  threshold: number | null = null,
  baseline: number | null = null,
): number[] {
  // The baseline run is a measurement like the others (it may be older than the runs listed): always on the axis.
  const known = [...values, baseline].filter((value): value is number => value !== null);
  const highest = Math.max(0, ...known);
  const near = threshold !== null && (highest <= 0 || threshold <= highest * THRESHOLD_STRETCH);
  return niceTicks(Math.min(0, ...known), Math.max(highest, near ? threshold : 0));
}

/**
 * The x axis's ticks: the runs' own start times (a tick between two runs marks nothing), every k-th so labels
 * `labelPx` wide fit in `widthPx`, counted back from the latest run, which always has its label.
 */
export function trendXTicks(times: readonly number[], widthPx: number, labelPx: number): number[] {
  if (times.length === 0) return [];
  const fit = Math.max(1, Math.floor(widthPx / labelPx));
  const every = Math.ceil(times.length / fit);
  return times.filter((_t, index) => (times.length - 1 - index) % every === 0);
}

/** The plan's pinned baseline run as a line on a figure: its value and words ("Baseline run 1a2b3c4d…: 12.6 ms"); null without one. */
export function trendBaseline(
  figure: TrendFigure,
  baseline: TrendRun | null | undefined,
  format: (value: number) => string,
): { value: number; label: string } | null {
  const value = baseline ? figure.value(baseline) : null;
  if (!baseline || value === null) return null;
  return { value, label: `Baseline run ${shortId(baseline.runId)}: ${format(value)}` };
}

const MINUTE = 60;

/**
 * The x axis's labels in the reader's locale and zone, as short as the runs allow: the time alone when every run is
 * on one day ("6:36 AM", "06:36"), the day and time within a year ("Nov 26, 6:36 AM"), the date across years; seconds
 * only when two runs are under a minute apart (else their ticks would read the same).
 */
export function trendTickFormat(times: readonly number[], place: ReaderPlace = {}): (t: number) => string {
  const zone = place.timeZone ? { timeZone: place.timeZone } : {};
  const day = new Intl.DateTimeFormat(place.locale, { year: "numeric", month: "numeric", day: "numeric", ...zone });
  const year = new Intl.DateTimeFormat(place.locale, { year: "numeric", ...zone });
  const at = (t: number) => new Date(t * 1000);
  const sorted = [...times].sort((a, b) => a - b);
  const close = sorted.some((t, index) => index > 0 && t - sorted[index - 1]! < MINUTE);
  const oneDay = new Set(sorted.map((t) => day.format(at(t)))).size <= 1;
  const oneYear = new Set(sorted.map((t) => year.format(at(t)))).size <= 1;
  const clock: Intl.DateTimeFormatOptions = {
    hour: "numeric",
    minute: "2-digit",
    ...(close ? { second: "2-digit" as const } : {}),
  };
  const options: Intl.DateTimeFormatOptions = oneDay
    ? clock
    : oneYear
      ? { month: "short", day: "numeric", ...clock }
      : { year: "numeric", month: "short", day: "numeric" };
  const format = new Intl.DateTimeFormat(place.locale, { ...options, ...zone });
  return (t) => format.format(at(t));
}

/** What one figure's chart draws: its columns, the SLO's and the baseline run's lines, its y ticks and its x labels. */
export interface TrendChart {
  columns: [number[], (number | null)[]];
  threshold: { value: number; label: string } | null;
  baseline: { value: number; label: string } | null;
  yTicks: number[];
  tickLabel: (t: number) => string;
}

/** One figure's chart over the plan's runs, with the plan's SLOs and its baseline run (its value worded by `format`). */
export function trendChart(
  runs: readonly TrendRun[],
  figure: TrendFigure,
  slos: readonly Slo[] | undefined,
  baseline: TrendRun | null,
  format: (value: number) => string,
): TrendChart {
  const columns = trendColumns(runs, figure);
  const threshold = trendThreshold(figure, slos);
  const baselineLine = trendBaseline(figure, baseline, format);
  return {
    columns,
    threshold,
    baseline: baselineLine,
    yTicks: trendYTicks(columns[1], threshold?.value, baselineLine?.value),
    tickLabel: trendTickFormat(columns[0]),
  };
}
