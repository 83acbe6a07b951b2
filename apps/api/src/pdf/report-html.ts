// The report as one self-contained HTML page for Chromium to print: no scripts, no fetches, inline SVG charts.
// It says what the dashboard's report says (headline, SLO verdicts, capacity, figures, plan), laid out for paper.
import type { RunReport, RunView } from "@throng/protocol/run";
import type { PlanSpec } from "@throng/protocol/plan";
import { reportHeadline as sharedHeadline } from "@throng/protocol/report-headline";
import { countsMessages, hasRoundTrips, scenarioMetrics, type ScenarioMetric } from "@throng/protocol/scenario-metrics";
import { scriptMetricNames, scriptRunningTotals, scriptSloId, scriptSummary, scriptValue } from "@throng/protocol/script-metrics";
import { sloName, sloValueText, sloWords } from "@throng/protocol/slo-names";
import type { SeriesPoint } from "@throng/protocol/snapshot";

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const integer = (n: number) => Math.round(n).toLocaleString("en-GB");
const ms = (n: number | null | undefined) => (n === null || n === undefined ? "not measured" : `${n.toLocaleString("en-GB", { maximumFractionDigits: 2 })} ms`);
/** One format for every time in the PDF: the API has no reader's locale, so UTC, said so. */
const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "—");
/** Milliseconds for latency SLOs, percent for the 0..1 rates, a whole number for a script's counter (as the dashboard). */
const sloValue = (metric: string, value: number | null) =>
  sloValueText(metric, value, { integer, ms, percent: (ratio) => `${(ratio * 100).toLocaleString("en-GB", { maximumFractionDigits: 2 })} %` });
/** API text with SLO metric ids ("rtt-p99-ms < 50") in words, as the dashboard shows it. */
const words = (text: string) => sloWords(text, sloValue);

/** A 0..1 ratio as percent: "98.7 %". */
const percent = (ratio: number | null) => (ratio === null ? "not measured" : `${(ratio * 100).toLocaleString("en-GB", { maximumFractionDigits: 1 })} %`);
/** Messages per second: whole above 100, one decimal below, so a small run does not read as 0. */
const rate = (n: number) => n.toLocaleString("en-GB", { maximumFractionDigits: n >= 100 ? 0 : 1 });

/** The one line under the title: the dashboard's sentence (how the run ended against its SLOs, at what load), in the PDF's formats. */
export function reportHeadline(run: RunView): string {
  return sharedHeadline(run, { integer, rate, ms, percent, words });
}

function table(head: string[], rows: string[][]): string {
  const cells = (tag: string, row: string[]) => `<tr>${row.map((cell) => `<${tag}>${escape(cell)}</${tag}>`).join("")}</tr>`;
  return `<table><thead>${cells("th", head)}</thead><tbody>${rows.map((row) => cells("td", row)).join("")}</tbody></table>`;
}

/** A line chart of one figure per second (`value` of each point, by its index), with its SLO threshold dashed when it has one. */
function chart(title: string, points: readonly SeriesPoint[], value: (p: SeriesPoint, index: number) => number | null, unit: string, threshold?: number): string {
  const values = points.map((p, index) => ({ t: p.t, v: value(p, index) })).filter((p): p is { t: number; v: number } => p.v !== null);
  if (values.length === 0) return `<figure><figcaption>${escape(title)}</figcaption><p class="muted">Not measured.</p></figure>`;
  const [w, h, pad] = [640, 160, 36];
  const t0 = values[0]!.t;
  const tSpan = Math.max(1, values[values.length - 1]!.t - t0);
  const top = Math.max(...values.map((p) => p.v), threshold ?? 0) * 1.1 || 1;
  const x = (t: number) => pad + ((t - t0) / tSpan) * (w - pad - 8);
  const y = (v: number) => h - 20 - (v / top) * (h - 30);
  const line = values.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ");
  const dots = values.length === 1 ? `<circle cx="${x(values[0]!.t)}" cy="${y(values[0]!.v)}" r="3" />` : "";
  const limit = threshold === undefined ? "" : `<line class="slo" x1="${pad}" x2="${w - 8}" y1="${y(threshold)}" y2="${y(threshold)}" />`;
  return `<figure><figcaption>${escape(title)} (${escape(unit)})</figcaption><svg viewBox="0 0 ${w} ${h}" role="img" aria-label="${escape(title)}">
<line class="axis" x1="${pad}" x2="${pad}" y1="10" y2="${h - 20}" /><line class="axis" x1="${pad}" x2="${w - 8}" y1="${h - 20}" y2="${h - 20}" />
<text x="${pad - 4}" y="14" text-anchor="end">${escape(integer(top))}</text><text x="${pad - 4}" y="${h - 20}" text-anchor="end">0</text>
<text x="${pad}" y="${h - 4}">0 s</text><text x="${w - 8}" y="${h - 4}" text-anchor="end">${integer(tSpan)} s</text>
${limit}<polyline points="${line}" />${dots}</svg></figure>`;
}

const STYLE = `body{font:10.5pt "Liberation Sans",Arial,sans-serif;color:#111;margin:0}h1{font-size:17pt;margin:0 0 4px}h2{font-size:12pt;margin:18px 0 6px}
.muted{color:#555}.headline{font-size:12pt;margin:10px 0;padding:8px 10px;border-left:4px solid #444;background:#f4f4f4}
table{border-collapse:collapse;width:100%;margin:4px 0}th,td{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;font-size:9.5pt}
figure{margin:8px 0;break-inside:avoid}figcaption{font-weight:bold;font-size:9.5pt}svg{width:100%;height:auto}
polyline{fill:none;stroke:#1f5fbf;stroke-width:1.5}circle{fill:#1f5fbf}.axis{stroke:#999}.slo{stroke:#c0392b;stroke-dasharray:5 4}text{font-size:9px;fill:#555}.note{white-space:pre-wrap}`;

/** A script's own figures (docs/protocols.md, "Scripted clients"), by its names: each timing's p50 and p99, each counter's total. */
function scriptFigures(summary: NonNullable<RunView["summary"]>): string[][] {
  const { timings, counters } = scriptSummary(summary);
  return [
    ...timings.flatMap(({ name, p50Ms, p99Ms }) => [[`${name} p50`, ms(p50Ms)], [`${name} p99`, ms(p99Ms)]]),
    ...counters.map(({ name, total }) => [`${name} total`, integer(total)]),
  ];
}

/**
 * A script's own metrics over time: each timing's p99 (and its p50 where an SLO judges it), each counter per second
 * (and its running total where a count SLO judges it, as that SLO's threshold is on the total), each SLO's line dashed.
 */
function scriptCharts(series: readonly SeriesPoint[], threshold: (metric: string) => number | undefined): string[] {
  const { histograms, counters } = scriptMetricNames(series);
  const timing = (name: string, stat: "p50" | "p99") => chart(`${name} ${stat}`, series, (p) => scriptValue(p, name, stat), "ms", threshold(scriptSloId(name, stat)));
  return [
    ...histograms.flatMap((name) => [...(threshold(scriptSloId(name, "p50")) === undefined ? [] : [timing(name, "p50")]), timing(name, "p99")]),
    ...counters.flatMap((name) => {
      const total = threshold(scriptSloId(name, "count"));
      const totals = total === undefined ? [] : scriptRunningTotals(series, name);
      return [
        chart(`${name} per second`, series, (p) => scriptValue(p, name, "count") ?? 0, "count/s"),
        ...(total === undefined ? [] : [chart(`${name} running total`, series, (_p, index) => totals[index]!, "count", total)]),
      ];
    }),
  ];
}

const targetText = (target: PlanSpec["target"]) => `${target.protocol} ${"url" in target ? target.url : `${target.host}:${target.port}`}`;

/** The printable report of one run. */
export function reportHtml(report: RunReport): string {
  const { run, series } = report;
  const summary = run.summary;
  const slos = run.verdict?.slos ?? [];
  const threshold = (metric: string) => run.spec.slos?.find((slo) => slo.metric === metric)?.below;
  const kind = run.spec.scenario.kind;
  const metrics = scenarioMetrics(kind);
  const metricText = (metric: ScenarioMetric, value: number | null) => (metric.unit === "ms" ? ms(value) : percent(value));
  // Scenario-first: the scenario's own figures lead; round trips only where clients time them, messages only where counted.
  const figures: string[][] = summary
    ? [
        ["Peak clients", integer(summary.peakClients)],
        ...metrics.map((metric) => [metric.label, metricText(metric, metric.read(summary))]),
        ...scriptFigures(summary),
        ...(countsMessages(kind) ? [["Messages per second", rate(summary.messagesPerSec)]] : []),
        ...(hasRoundTrips(kind) ? [["Round trip p50", ms(summary.rttP50Ms)], ["Round trip p99", ms(summary.rttP99Ms)]] : []),
        ["Errors", integer(summary.errors)], ["Connections failed", integer(summary.connectionsFailed)], ["Agents", integer(summary.agents)],
      ]
    : [];
  const charts = [
    ...metrics.map((metric) => metric.unit === "ms"
      ? chart(metric.label, series, (p) => metric.read(p), "ms", metric.slo === undefined ? undefined : threshold(metric.slo))
      : chart(metric.label, series, (p) => { const value = metric.read(p); return value === null ? null : value * 100; }, "%")),
    ...scriptCharts(series, threshold),
    ...(hasRoundTrips(kind) ? [chart("Round trip p99", series, (p) => p.rttP99Ms, "ms", threshold("rtt-p99-ms"))] : []),
    ...(countsMessages(kind) ? [chart("Messages received per second", series, (p) => p.messagesReceivedPerSec, "msg/s")] : []),
    chart("Clients", series, (p) => p.clients, "clients"),
  ];
  const capacity = run.capacity;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Report: ${escape(run.planName)}</title><style>${STYLE}</style></head><body>
<h1>Report: ${escape(run.planName)}</h1>
<p class="muted">Run ${escape(run.id)} · ${escape(run.status)} · started ${when(run.startedAt ?? run.createdAt)} · ended ${when(run.endedAt)}${run.startedBy ? ` · by ${escape(run.startedBy)}` : ""}</p>
<p class="headline">${escape(reportHeadline(run))}</p>
${run.tags.length ? `<p class="muted">Tags: ${run.tags.map(escape).join(", ")}</p>` : ""}
${run.note ? `<h2>Note</h2><p class="note">${escape(run.note)}</p>` : ""}
${slos.length ? `<h2>SLOs</h2>${table(["SLO", "Threshold", "Measured", "Status", "Seconds"], slos.map((slo) => [sloName(slo), `below ${sloValue(slo.metric, slo.below)}`, sloValue(slo.metric, slo.value), slo.status ?? (slo.passed ? "met" : "breached"), `broke in ${slo.breachedSeconds} of ${slo.measuredSeconds} s`]))}` : ""}
${capacity ? `<h2>Capacity estimate</h2><p>${escape(words(capacity.sentence))}</p>${table(["Step", "Clients", "Held"], capacity.steps.map((step) => [String(step.step), integer(step.clients), step.held ? "yes" : "no"]))}` : ""}
${figures.length ? `<h2>Figures</h2>${table(["Figure", "Value"], figures)}` : ""}
<h2>Over time</h2>
${charts.join("\n")}
<h2>Plan</h2>${table(["", ""], [["Target", targetText(run.spec.target)], ["Scenario", run.spec.scenario.kind], ["Clients", integer(run.spec.load.clients)], ["Duration", `${integer(run.spec.load.durationSec)} s`]])}
</body></html>`;
}
