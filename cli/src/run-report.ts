import { VERDICT_OUTCOME_WORDS, type SloVerdict } from "@throng/protocol/report";
import { kcpSummaryText } from "@throng/protocol/kcp-figures";
import type { RunSummary, RunView } from "@throng/protocol/run";
import { PLAIN_SLO_FORMAT, sloValueText } from "@throng/protocol/slo-names";
import { changeText, type BaselineComparison, type MetricComparison } from "@throng/protocol/baseline-compare";
import { allowanceText } from "@throng/protocol/regression-allowance";

/** A value in its metric's unit (slo-metrics.ts): rates as percentages, times in ms, a script counter as a count. */
export function formatSloValue(metric: string, value: number | null): string {
  return value === null ? "no data" : sloValueText(metric, value, PLAIN_SLO_FORMAT);
}

/** `rtt-p99-ms 82 ms, must be below 50 ms: FAIL (8 of 10 s breached, first at 12:00:03Z)` */
export function sloLine(slo: SloVerdict): string {
  const seconds = `${slo.breachedSeconds} of ${slo.measuredSeconds} s breached`;
  const first = slo.firstBreachAt !== null ? `, first at ${new Date(slo.firstBreachAt * 1000).toISOString()}` : "";
  const status = slo.status === "no-data" ? `NO DATA${slo.note ? `: ${slo.note}` : ""}` : slo.passed ? "pass" : "FAIL";
  return `${slo.metric} ${formatSloValue(slo.metric, slo.value)}, must be below ${formatSloValue(slo.metric, slo.below)}: ${status} (${seconds}${first})`;
}

const ms = (value: number | null | undefined) => (value === null || value === undefined ? "-" : `${value} ms`);

export function summaryLines(summary: RunSummary): string[] {
  const lines = [
    `  duration      ${summary.durationSec} s on ${summary.agents} agent(s), peak ${summary.peakClients} clients, ${summary.peakConnections} connections`,
    `  messages      sent ${summary.messagesSent}, received ${summary.messagesReceived}, ${Math.round(summary.messagesPerSec)}/s`,
    `  round trip    p50 ${ms(summary.rttP50Ms)}, p99 ${ms(summary.rttP99Ms)}, max ${ms(summary.rttMaxMs)}`,
    `  errors        ${summary.errors}, failed connections ${summary.connectionsFailed}`,
  ];
  const kcp = kcpSummaryText(summary);
  if (kcp) lines.push(`  kcp           ${kcp}`);
  if (summary.saturatedAgents?.length) {
    lines.push(
      `  warning       ${summary.saturatedAgents.length} agent(s) were the bottleneck (${summary.saturatedAgents[0]!.reason}); the figures understate the server`,
    );
  }
  return lines;
}

/** "rtt-p99-ms 42.1 ms against 2.3 ms: +1730.4% (allowed 10%)". */
export function metricLine(metric: MetricComparison): string {
  const allowed =
    metric.allowance !== null
      ? ` (allowed ${allowanceText({ metric: metric.metric, limit: metric.allowance, unit: metric.unit })})`
      : "";
  const status = metric.status === "regressed" ? "REGRESSED" : metric.status === "no-data" ? "NO DATA" : metric.status;
  return `${metric.metric} ${formatSloValue(metric.metric, metric.value)} against ${formatSloValue(metric.metric, metric.baseline)}: ${changeText(metric)}${allowed}, ${status}`;
}

/** The comparison's lines of the end-of-run report. */
export function baselineLines(result: BaselineComparison): string[] {
  return [
    `against baseline run ${result.baselineRunId}:`,
    ...result.metrics.map((metric) => `  ${metricLine(metric)}`),
  ];
}

/** Why the run is not a pass against its baseline, for the verdict line; none when it held. */
export function baselineReasons(result: BaselineComparison): string[] {
  if (result.outcome === "regressed")
    return [
      `worse than baseline run ${result.baselineRunId}: ${result.metrics
        .filter((metric) => metric.status === "regressed")
        .map(metricLine)
        .join("; ")}`,
    ];
  if (result.outcome === "incomplete") {
    const missing = result.metrics
      .filter((metric) => metric.allowance !== null && metric.status === "no-data")
      .map((metric) => metric.metric);
    return [
      `not comparable with baseline run ${result.baselineRunId}: ${missing.join(", ")} not measured by both runs`,
    ];
  }
  return [];
}

/** The end-of-run report: status, summary, each SLO, the capacity sentence, the baseline, and the verdict (with why) last. */
export function reportText(run: RunView, baseline?: BaselineComparison): string {
  const lines = [`run ${run.id} (${run.planName}) ${run.status}${run.error ? `: ${run.error}` : ""}`];
  if (run.summary) lines.push("summary:", ...summaryLines(run.summary));
  if (run.verdict?.slos.length) lines.push("SLOs:", ...run.verdict.slos.map((slo) => `  ${sloLine(slo)}`));
  if (run.capacity) lines.push(`capacity: ${run.capacity.sentence}`);
  for (const warning of run.verdict?.warnings ?? []) lines.push(`warning: ${warning}`);
  if (baseline) lines.push(...baselineLines(baseline));
  lines.push(verdictLine(run, baseline));
  return lines.join("\n");
}

/** One line a CI log can be grepped for: the outcome, and every reason it is not a pass (a regression against the baseline first). */
export function verdictLine(run: RunView, baseline?: BaselineComparison): string {
  const line = runVerdictLine(run);
  const reasons = baseline ? baselineReasons(baseline) : [];
  if (reasons.length === 0 || !/^verdict: (PASSED|INCOMPLETE)/.test(line)) return line;
  const own = line.startsWith("verdict: INCOMPLETE") ? (run.verdict?.reasons ?? []) : [];
  const words = VERDICT_OUTCOME_WORDS[baseline!.outcome === "regressed" ? "breached" : "incomplete"];
  return `verdict: ${words} — ${[...reasons, ...own].join("; ")}`;
}

function runVerdictLine(run: RunView): string {
  const verdict = run.verdict;
  if (run.status !== "finished" && !verdict?.outcome)
    return `verdict: ERROR — the run ${run.status}${run.error ? ` (${run.error})` : ""}`;
  if (!verdict && run.spec.slos?.length)
    return "verdict: UNKNOWN — the run finished but the server recorded no SLO verdict";
  if (!verdict) return "verdict: PASSED (finished; the plan has no SLOs)";
  if (!verdict.outcome) {
    const failed = verdict.slos.filter((slo) => !slo.passed).map((slo) => slo.metric);
    return verdict.passed
      ? `verdict: PASSED (${verdict.slos.length} SLO(s) held)`
      : `verdict: FAILED — SLO breached: ${failed.join(", ")}`;
  }
  if (verdict.outcome === "passed") {
    const what = run.capacity
      ? "a valid capacity estimate"
      : verdict.slos.length
        ? `every SLO met (${verdict.slos.length})`
        : "no SLOs to judge";
    return `verdict: PASSED (the load ran as planned; ${what})`;
  }
  return `verdict: ${VERDICT_OUTCOME_WORDS[verdict.outcome]} — ${verdict.reasons.join("; ") || `the run ${run.status}`}`;
}
