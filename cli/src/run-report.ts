import type { SloVerdict } from "@throng/protocol/report";
import type { RunSummary, RunView } from "@throng/protocol/run";

/** Ratios (error-rate, loss-rate) read best as percentages; latencies are already in ms. */
export function formatSloValue(metric: string, value: number | null): string {
  if (value === null) return "no data";
  if (metric.endsWith("-rate")) return `${(value * 100).toFixed(3)}%`;
  return metric.endsWith("-ms") ? `${value} ms` : String(value);
}

/** `rtt-p99-ms 82 ms, must be below 50 ms: FAIL (8 of 10 s breached, first at 12:00:03Z)` */
export function sloLine(slo: SloVerdict): string {
  const seconds = `${slo.breachedSeconds} of ${slo.measuredSeconds} s breached`;
  const first = slo.firstBreachAt !== null ? `, first at ${new Date(slo.firstBreachAt * 1000).toISOString()}` : "";
  return `${slo.metric} ${formatSloValue(slo.metric, slo.value)}, must be below ${formatSloValue(slo.metric, slo.below)}: ${slo.passed ? "pass" : "FAIL"} (${seconds}${first})`;
}

const ms = (value: number | null | undefined) => (value === null || value === undefined ? "-" : `${value} ms`);

export function summaryLines(summary: RunSummary): string[] {
  const lines = [
    `  duration      ${summary.durationSec} s on ${summary.agents} agent(s), peak ${summary.peakClients} clients, ${summary.peakConnections} connections`,
    `  messages      sent ${summary.messagesSent}, received ${summary.messagesReceived}, ${Math.round(summary.messagesPerSec)}/s`,
    `  round trip    p50 ${ms(summary.rttP50Ms)}, p99 ${ms(summary.rttP99Ms)}, max ${ms(summary.rttMaxMs)}`,
    `  errors        ${summary.errors}, failed connections ${summary.connectionsFailed}`,
  ];
  if (summary.saturatedAgents?.length) {
    lines.push(`  warning       ${summary.saturatedAgents.length} agent(s) were the bottleneck (${summary.saturatedAgents[0]!.reason}); the figures understate the server`);
  }
  return lines;
}

/** The end-of-run report: status, summary, each SLO, the capacity sentence, and one verdict line last. */
export function reportText(run: RunView): string {
  const lines = [`run ${run.id} (${run.planName}) ${run.status}${run.error ? `: ${run.error}` : ""}`];
  if (run.summary) lines.push("summary:", ...summaryLines(run.summary));
  if (run.verdict) lines.push("SLOs:", ...run.verdict.slos.map((slo) => `  ${sloLine(slo)}`));
  if (run.capacity) lines.push(`capacity: ${run.capacity.sentence}`);
  lines.push(verdictLine(run));
  return lines.join("\n");
}

export function verdictLine(run: RunView): string {
  if (run.status !== "finished") return `verdict: ERROR — the run ${run.status}${run.error ? ` (${run.error})` : ""}`;
  if (!run.verdict && run.spec.slos?.length) return "verdict: UNKNOWN — the run finished but the server recorded no SLO verdict";
  if (!run.verdict) return "verdict: PASSED (finished; the plan has no SLOs)";
  const failed = run.verdict.slos.filter((slo) => !slo.passed).map((slo) => slo.metric);
  return run.verdict.passed ? `verdict: PASSED (${run.verdict.slos.length} SLO(s) held)` : `verdict: FAILED — SLO breached: ${failed.join(", ")}`;
}
