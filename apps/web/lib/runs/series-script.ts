// A script's own metrics on the run page and in the report: the histograms it timed with ctx.measure (p50 and
// p99 per second) and the counters it bumped with ctx.count (per second), by the names the script gave them.
// What the metrics are (names, values, totals) is the protocol's, shared with the report PDF; here they become lines and cells.
import type { RunView } from "@throng/protocol/run";
import { scriptCountPerSecond, scriptSummary, scriptValue } from "@throng/protocol/script-metrics";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { formatInteger, formatMs } from "../shared/format";
import type { ChartLine } from "../charts/series";

const COLOURS = ["#0969da", "#1a7f37", "#8250df", "#9a6700", "#cf222e", "#bf3989", "#0a7b83", "#57606a"];

export { scriptMetricNames } from "@throng/protocol/script-metrics";

/** p50 and p99 of each timed name ("connect-ms p99"); a second without samples is a gap. */
export function scriptLatencyLines(names: readonly string[]): ChartLine[] {
  return names.flatMap((name, index) => {
    const color = COLOURS[index % COLOURS.length]!;
    return [
      { label: `${name} p50`, color, dash: [4, 3], value: (p: SeriesPoint) => scriptValue(p, name, "p50") },
      { label: `${name} p99`, color, value: (p: SeriesPoint) => scriptValue(p, name, "p99") },
    ];
  });
}

/** Each counter's count in the second; a second the counter is missing from counted 0. */
export function scriptCountLines(names: readonly string[]): ChartLine[] {
  return names.map((name, index) => ({
    label: name,
    color: COLOURS[index % COLOURS.length]!,
    value: (p) => scriptCountPerSecond(p, name),
  }));
}

/** Summary cells for a finished run: each histogram's p50/p99 over the run, each counter's total. */
export function scriptSummaryCells(
  summary: NonNullable<RunView["summary"]>,
): { label: string; value: string; testId: string }[] {
  const { timings, counters } = scriptSummary(summary);
  const timed = timings.flatMap(({ name, p50Ms, p99Ms }) => [
    { label: `${name} p50`, value: formatMs(p50Ms), testId: `summary-script-${name}-p50` },
    { label: `${name} p99`, value: formatMs(p99Ms), testId: `summary-script-${name}-p99` },
  ]);
  const counted = counters.map(({ name, total }) => ({
    label: name,
    value: formatInteger(total),
    testId: `summary-script-${name}`,
  }));
  return [...timed, ...counted];
}
