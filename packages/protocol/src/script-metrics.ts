// A script run's own metrics (docs/protocols.md, "Scripted clients"): the histograms its clients timed with
// ctx.measure and the counters they bumped with ctx.count, by the names the script gave them. Read here once for
// the run page, the report, the report PDF and the SLO judge, each bringing its own formats and drawing.
import type { z } from "zod";
import type { ScenarioFigures } from "./snapshot";

/** A script metric's name (ctx.measure, ctx.count; snapshot `script.NAME`, `scriptCounts.NAME`), as a pattern. */
export const SCRIPT_METRIC_NAME = "[a-z][a-z0-9-]{0,40}";

/** What a script SLO reads of a metric: a histogram's percentile, or a counter's count. */
export type ScriptStat = "p50" | "p99" | "count";

/** A script metric's SLO id, "script:NAME-p50" / "-p99" (a histogram) / "-count" (a counter's total), as a pattern: written here only. */
const SCRIPT_STATS = "p50|p99|count";
export const SCRIPT_SLO_ID = `script:${SCRIPT_METRIC_NAME}-(?:${SCRIPT_STATS})`;
const SCRIPT_SLO_PARTS = new RegExp(`^script:(${SCRIPT_METRIC_NAME})-(${SCRIPT_STATS})$`);

/** A script metric's SLO: the histogram ("p50", "p99") or counter ("count") it reads; null for any other metric. */
export function scriptSloMetric(metric: string): { name: string; stat: ScriptStat } | null {
  const match = SCRIPT_SLO_PARTS.exec(metric);
  return match ? { name: match[1]!, stat: match[2] as ScriptStat } : null;
}

/** The script figures a second (SeriesPoint) and a run (RunSummary) both carry. */
type Figures = Pick<z.infer<typeof ScenarioFigures>, "script" | "scriptCounts">;

/**
 * One script metric over a second or a run: a histogram's p50 or p99 (null without samples), a counter's count
 * (null when the script never reported it: a counter that was not counted is no data, not a true 0).
 */
export function scriptValue(figures: Figures, name: string, stat: ScriptStat): number | null {
  if (stat === "count") return figures.scriptCounts?.[name] ?? null;
  const stats = figures.script?.[name];
  if (!stats || stats.count === 0) return null;
  return stat === "p50" ? stats.p50Ms : stats.p99Ms;
}

/** The SLO metric id of a script metric, "script:reply-ms-p99" (scriptSloMetric reads it back). */
export function scriptSloId(name: string, stat: ScriptStat): `script:${string}` {
  return `script:${name}-${stat}`;
}

/** Every histogram and counter name any second carries, sorted. */
export function scriptMetricNames(points: readonly Figures[]): { histograms: string[]; counters: string[] } {
  const histograms = new Set<string>();
  const counters = new Set<string>();
  for (const point of points) {
    for (const name of Object.keys(point.script ?? {})) histograms.add(name);
    for (const name of Object.keys(point.scriptCounts ?? {})) counters.add(name);
  }
  return { histograms: [...histograms].sort(), counters: [...counters].sort() };
}

/** A finished run's script metrics by name, sorted: each timing's p50 and p99 (null untimed), each counter's total. */
export function scriptSummary(summary: Figures): {
  timings: { name: string; p50Ms: number | null; p99Ms: number | null }[];
  counters: { name: string; total: number }[];
} {
  const timings = Object.keys(summary.script ?? {})
    .sort()
    .map((name) => ({ name, p50Ms: scriptValue(summary, name, "p50"), p99Ms: scriptValue(summary, name, "p99") }));
  const counters = Object.keys(summary.scriptCounts ?? {})
    .sort()
    .map((name) => ({ name, total: summary.scriptCounts![name]! }));
  return { timings, counters };
}

/** A counter's count in each second, a second the counter is missing from counted 0 (it counted nothing then). */
export function scriptCountPerSecond(point: Figures, name: string): number {
  return scriptValue(point, name, "count") ?? 0;
}

/** A counter's running total at each second, in order: what its count SLO ("below N in total") judges second by second. */
export function scriptRunningTotals(points: readonly Figures[], name: string): number[] {
  let total = 0;
  return points.map((point) => (total += scriptCountPerSecond(point, name)));
}
