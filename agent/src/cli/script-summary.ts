import type { RunSummary } from "@throng/protocol/run";
import { scriptSummary } from "@throng/protocol/script-metrics";

/** The summary's script lines: each named histogram's p50, p99 and count (merged over the run as the control plane merges them), then each counter. */
export function scriptSummaryText(summary: RunSummary): string | undefined {
  const { timings, counters } = scriptSummary(summary);
  const lines = [
    ...timings.map(({ name }) => {
      const stats = summary.script![name]!;
      return stats.count === 0
        ? `  script ${name.padEnd(15)} no samples`
        : `  script ${name.padEnd(15)} p50 ${stats.p50Ms} ms  p99 ${stats.p99Ms} ms  max ${stats.maxMs} ms  (${stats.count} samples)`;
    }),
    ...counters.map(({ name, total }) => `  script ${name.padEnd(15)} ${total}`),
  ];
  return lines.length ? lines.join("\n") : undefined;
}
