// A script's own metrics on the run page and in the report: the histograms it timed with ctx.measure (p50 and
// p99 per second) and the counters it bumped with ctx.count (per second), by the names the script gave them.
import type { RunView } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { formatInteger, formatMs } from "./format";
import type { ChartLine } from "./series";

const COLOURS = ["#0969da", "#1a7f37", "#8250df", "#9a6700", "#cf222e", "#bf3989", "#0a7b83", "#57606a"];

/** Every histogram and counter name any second carries, sorted. */
export function scriptMetricNames(points: readonly SeriesPoint[]): { histograms: string[]; counters: string[] } {
  const histograms = new Set<string>();
  const counters = new Set<string>();
  for (const point of points) {
    for (const name of Object.keys(point.script ?? {})) histograms.add(name);
    for (const name of Object.keys(point.scriptCounts ?? {})) counters.add(name);
  }
  return { histograms: [...histograms].sort(), counters: [...counters].sort() };
}

/** p50 and p99 of each timed name ("connect-ms p99"); a second without samples is a gap. */
export function scriptLatencyLines(names: readonly string[]): ChartLine[] {
  return names.flatMap((name, index) => {
    const color = COLOURS[index % COLOURS.length]!;
    return [
      { label: `${name} p50`, color, dash: [4, 3], value: (p: SeriesPoint) => p.script?.[name]?.p50Ms ?? null },
      { label: `${name} p99`, color, value: (p: SeriesPoint) => p.script?.[name]?.p99Ms ?? null },
    ];
  });
}

/** Each counter's count in the second; a second the counter is missing from counted 0. */
export function scriptCountLines(names: readonly string[]): ChartLine[] {
  return names.map((name, index) => ({ label: name, color: COLOURS[index % COLOURS.length]!, value: (p) => p.scriptCounts?.[name] ?? 0 }));
}

/** Summary cells for a finished run: each histogram's p50/p99 over the run, each counter's total. */
export function scriptSummaryCells(summary: NonNullable<RunView["summary"]>): { label: string; value: string; testId: string }[] {
  const timed = Object.entries(summary.script ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([name, stats]) => [
      { label: `${name} p50`, value: formatMs(stats.p50Ms), testId: `summary-script-${name}-p50` },
      { label: `${name} p99`, value: formatMs(stats.p99Ms), testId: `summary-script-${name}-p99` },
    ]);
  const counted = Object.entries(summary.scriptCounts ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, total]) => ({ label: name, value: formatInteger(total), testId: `summary-script-${name}` }));
  return [...timed, ...counted];
}
