// The one sentence at the top of a run's report, said the same way by the dashboard and the report PDF: how the
// run ended against its SLOs, at what load, in the scenario's own figures (round trips for ping-pong, broadcasts
// for movement-sync, connect and login times for a login storm; for a script, those of its own metrics its SLOs
// judge, and no message count, as the engine does not count its messages). Each reader brings its own number formats.
import { sloMetricName } from "./slo-names";
import type { LoadCheck } from "./report";
import type { RunSummary, RunView } from "./run";
import { countsMessages, hasRoundTrips, scenarioMetrics, type ScenarioKind } from "./scenario-metrics";
import { scriptValue } from "./script-metrics";
import { scriptSloMetric } from "./script-metrics";

export interface HeadlineFormat {
  integer(value: number): string;
  /** Messages per second. */
  rate(value: number): string;
  /** A latency; null reads as not measured. */
  ms(value: number | null): string;
  /** A 0..1 ratio as percent; null reads as not measured. */
  percent(value: number | null): string;
  /** API text with SLO metric ids (a search's sentence, a verdict's reasons), put in words. */
  words(text: string): string;
}

/**
 * "20 clients, 100 messages/s, round trip p99 4.5 ms"; "8 clients, 320 messages/s, broadcast p99 12 ms, broadcast reach 99 %";
 * a script's metrics by their own names where an SLO judges them: "2 clients, reply-ms p99 1.2 ms, replies count 1,200".
 */
export function loadPhrase(
  kind: ScenarioKind,
  summary: RunSummary,
  format: HeadlineFormat,
  slos: readonly { metric: string }[] = [],
  load?: LoadCheck,
): string {
  const parts = [clientsPhrase(summary, format, load)];
  if (countsMessages(kind)) parts.push(`${format.rate(summary.messagesPerSec)} messages/s`);
  if (hasRoundTrips(kind)) parts.push(`round trip p99 ${format.ms(summary.rttP99Ms)}`);
  for (const metric of scenarioMetrics(kind)) {
    const value = metric.read(summary);
    parts.push(`${metric.label.toLowerCase()} ${metric.unit === "ms" ? format.ms(value) : format.percent(value)}`);
  }
  for (const metric of new Set(slos.map((slo) => slo.metric))) {
    const script = scriptSloMetric(metric);
    if (!script) continue;
    const value = scriptValue(summary, script.name, script.stat);
    // A count reads as a whole number; format.ms(null) is the reader's "not measured" for either.
    parts.push(
      `${script.name} ${script.stat} ${script.stat === "count" && value !== null ? format.integer(value) : format.ms(value)}`,
    );
  }
  return parts.join(", ");
}

/**
 * The clients the run held: "20 clients" when the load held; when it did not (the server died, or dropped them), the
 * most ever connected and when the connections were lost, in words the reader's `words` puts times in:
 * "at most 4 of 4 clients connected, 0 from 2026-11-27T10:08:33.000Z". Never "at 4 clients" of a load that lost them.
 */
function clientsPhrase(summary: RunSummary, format: HeadlineFormat, load: LoadCheck | undefined): string {
  if (
    load?.leastConnectedAt === undefined ||
    load.leastConnectedPlanned === undefined ||
    load.minConnectedShare === null
  )
    return `${format.integer(summary.peakClients)} clients`;
  const planned = load.leastConnectedPlanned;
  const least = Math.round(load.minConnectedShare * planned);
  const from = new Date(load.leastConnectedAt * 1000).toISOString();
  return `at most ${format.integer(summary.peakConnections)} of ${format.integer(planned)} clients connected, ${format.integer(least)} from ${from}`;
}

/**
 * The one sentence at the top. A capacity search has its own (from the API, which knows the steps);
 * any other run is summed up from its verdict and totals.
 */
export function reportHeadline(run: RunView, format: HeadlineFormat): string {
  if (run.capacity) return format.words(run.capacity.sentence);
  const summary = run.summary;
  if (run.status === "failed") return `The run failed${run.error ? `: ${run.error}` : "."}`;
  if (!summary)
    return run.status === "finished" || run.status === "aborted"
      ? "The run measured nothing."
      : "The run has not finished yet; the report fills in when it does.";
  const verdict = run.verdict;
  const load = format.words(loadPhrase(run.spec.scenario.kind, summary, format, run.spec.slos, verdict?.load));
  const aborted = run.status === "aborted" ? " (aborted early)" : "";
  // "at 20 clients" only of a load that held them; "with at most 4 of 4 clients connected, …" of one that lost them.
  const at = verdict?.load?.leastConnectedAt === undefined ? "at" : "with";
  if (verdict?.outcome === "incomplete")
    return `Not passed ${at} ${load}${aborted}: ${verdict.reasons.map(format.words).join("; ")}.`;
  if (verdict?.outcome === "aborted") return `Aborted ${at} ${load}; an aborted run does not pass.`;
  if (!verdict || verdict.slos.length === 0) return `Ran ${load}${aborted}; the plan sets no SLOs to judge it by.`;
  if (verdict.passed)
    return `Passed all ${verdict.slos.length} SLO${verdict.slos.length === 1 ? "" : "s"} ${at} ${load}${aborted}.`;
  // An SLO without data did not fail: it was not judged (a server that died left no round trip to time).
  const failed = verdict.slos
    .filter((slo) => !slo.passed && slo.status !== "no-data")
    .map((slo) => sloMetricName(slo.metric));
  const unjudged = verdict.slos.filter((slo) => slo.status === "no-data").map((slo) => sloMetricName(slo.metric));
  const named = failed.length
    ? `${failed.join(", ")}${unjudged.length ? ` (${unjudged.join(", ")} not judged)` : ""}`
    : `${unjudged.join(", ")} not judged`;
  return `Failed ${named} ${at} ${load}${aborted}.`;
}

/**
 * When the run started and ended, in the reader's date format: "started 12:18:25 · ended 12:19:30". A run that ended
 * before its planned start (refused by its agents at once) never started, and says so rather than "started 12:18:25 ·
 * ended 12:18:23"; so does a run from before the API cleared that start.
 */
export function runTimes(
  run: Pick<RunView, "createdAt" | "startedAt" | "endedAt">,
  dateTime: (iso: string) => string,
): string {
  const started =
    run.startedAt && (!run.endedAt || Date.parse(run.startedAt) <= Date.parse(run.endedAt)) ? run.startedAt : null;
  if (!run.endedAt)
    return started ? `started ${dateTime(started)}` : `created ${dateTime(run.createdAt)}, not started yet`;
  if (!started) return `created ${dateTime(run.createdAt)} · ended ${dateTime(run.endedAt)} before it started`;
  return `started ${dateTime(started)} · ended ${dateTime(run.endedAt)}`;
}
