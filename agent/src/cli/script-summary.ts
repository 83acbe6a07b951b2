import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { Histogram } from "hdr-histogram-js";
import { decodeHistogram } from "../metrics/histogram";

/** A script's named histograms (merged over the run) and counters (summed), by name; empty when the plan ran no script. */
export function summariseScriptMetrics(snapshots: readonly MetricSnapshot[]): { histograms: Map<string, Histogram>; counters: Map<string, number> } {
  const histograms = new Map<string, Histogram>();
  const counters = new Map<string, number>();
  for (const snapshot of snapshots) {
    for (const [name, encoded] of Object.entries(snapshot.histograms.script ?? {})) {
      const decoded = decodeHistogram(encoded);
      const existing = histograms.get(name);
      if (existing) existing.add(decoded);
      else histograms.set(name, decoded);
    }
    for (const [name, n] of Object.entries(snapshot.counters.scriptCounts ?? {})) counters.set(name, (counters.get(name) ?? 0) + n);
  }
  return { histograms, counters };
}

const ms = (us: number) => (us / 1000).toFixed(2);

/** The summary's script lines: each named histogram's p50, p99 and count (recorded in µs, shown in ms), then each counter. */
export function scriptSummaryText(snapshots: readonly MetricSnapshot[]): string | undefined {
  const { histograms, counters } = summariseScriptMetrics(snapshots);
  const lines = [
    ...[...histograms].map(([name, h]) =>
      h.totalCount === 0 ? `  script ${name.padEnd(15)} no samples` : `  script ${name.padEnd(15)} p50 ${ms(h.getValueAtPercentile(50))} ms  p99 ${ms(h.getValueAtPercentile(99))} ms  max ${ms(h.maxValue)} ms  (${h.totalCount} samples)`,
    ),
    ...[...counters].map(([name, n]) => `  script ${name.padEnd(15)} ${n}`),
  ];
  return lines.length ? lines.join("\n") : undefined;
}
