// The report as one self-contained HTML page for Chromium to print: no scripts, no fetches, inline SVG charts.
// It says what the dashboard's report says (headline, SLO verdicts, capacity, figures, plan), laid out for paper,
// in the reader's own number and date formats (the dashboard sends its locale and time zone with the request).
import type { RunReport, RunView } from "@throng/protocol/run";
import type { PlanSpec } from "@throng/protocol/plan";
import { niceTicks, timeTicks } from "@throng/protocol/chart-ticks";
import {
  displayFormats,
  instantsInWords,
  type DisplayFormats,
  type ReaderPlace,
} from "@throng/protocol/display-format";
import { reportHeadline as sharedHeadline, runTimes, type HeadlineFormat } from "@throng/protocol/report-headline";
import { countsMessages, hasRoundTrips, scenarioMetrics, type ScenarioMetric } from "@throng/protocol/scenario-metrics";
import {
  scriptMetricNames,
  scriptRunningTotals,
  scriptSloId,
  scriptSummary,
  scriptValue,
} from "@throng/protocol/script-metrics";
import { sloMetricName, sloName, sloValueText, sloWords } from "@throng/protocol/slo-names";
import { measuredOfPoint } from "@throng/protocol/slo-judge";
import { inChartUnit, sloMetricSpec, type SloMetric } from "@throng/protocol/slo-metrics";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import type { LatencyDistribution } from "@throng/protocol/latency-distribution";
import { distributionFigures } from "./distribution-svg";
import { escapeHtml, table } from "./html-table";
import { sessionStepsHtml } from "./session-steps-html";
import { ABOVE_STREAM_NOTE, cohortLatencyRead, cohortSections } from "@throng/protocol/cohort-report";

/** The PDF's words for numbers, SLO values and dates, in one reader's locale and time zone. */
interface PdfFormats extends HeadlineFormat {
  readonly place: DisplayFormats;
  /** Milliseconds for latency SLOs, percent for the 0..1 rates, a whole number for a script's counter (as the dashboard). */
  sloValue(metric: string, value: number | null): string;
}

function pdfFormats(reader: ReaderPlace): PdfFormats {
  const place = displayFormats(reader);
  const ms = (n: number | null | undefined) => (n === null || n === undefined ? "not measured" : place.ms(n));
  const sloValue = (metric: string, value: number | null) =>
    sloValueText(metric, value, { integer: place.integer, ms, percent: (ratio) => place.percent(ratio, 2) });
  return {
    place,
    sloValue,
    ms,
    integer: place.integer,
    rate: place.rate,
    percent: (ratio) => (ratio === null ? "not measured" : place.percent(ratio, 1)),
    /** API text with SLO metric ids ("rtt-p99-ms < 50") in words, as the dashboard shows it. */
    words: (text) => instantsInWords(sloWords(text, sloValue), place.dateTime),
  };
}

/** The one line under the title: the dashboard's sentence (how the run ended against its SLOs, at what load), in the PDF's formats. */
export function reportHeadline(run: RunView, reader: ReaderPlace = {}): string {
  return sharedHeadline(run, pdfFormats(reader));
}

/** An SLO line on a chart: where (in the chart's unit) and its words. */
interface ChartThreshold {
  value: number;
  label: string;
}

const [W, H, LEFT, RIGHT, TOP, BOTTOM] = [320, 150, 46, 8, 14, 18];

/**
 * A line chart of one figure per second (`value` of each point, by its index): a y axis on round steps whose top tick
 * is above the highest point (and the SLO), times of day along x in the reader's zone, and the SLO's line dashed
 * with its words. The axis labels are in the chart's unit, so the caption names the unit once.
 */
function chart(
  f: PdfFormats,
  title: string,
  points: readonly SeriesPoint[],
  value: (p: SeriesPoint, index: number) => number | null,
  unit: string,
  threshold?: ChartThreshold,
): string {
  const values = points
    .map((p, index) => ({ t: p.t, v: value(p, index) }))
    .filter((p): p is { t: number; v: number } => p.v !== null);
  if (values.length === 0)
    return `<figure><figcaption>${escapeHtml(title)}</figcaption><p class="muted">Not measured.</p></figure>`;
  const t0 = values[0]!.t;
  const t1 = Math.max(t0 + 1, values[values.length - 1]!.t);
  const yTicks = niceTicks(
    Math.min(...values.map((p) => p.v)),
    Math.max(...values.map((p) => p.v), threshold?.value ?? 0),
  );
  const [bottom, top] = [yTicks[0]!, yTicks[yTicks.length - 1]!];
  const x = (t: number) => LEFT + ((t - t0) / (t1 - t0)) * (W - LEFT - RIGHT);
  const y = (v: number) => H - BOTTOM - ((v - bottom) / (top - bottom)) * (H - BOTTOM - TOP);
  const tick = (v: number) =>
    unit === "ms" ? f.place.ms(v) : unit === "%" ? `${f.place.decimal(v, 2)} %` : f.place.decimal(v, 2);
  const grid = yTicks.map(
    (v) =>
      `<line class="grid" x1="${LEFT}" x2="${W - RIGHT}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" /><text x="${LEFT - 4}" y="${(y(v) + 3).toFixed(1)}" text-anchor="end">${escapeHtml(tick(v))}</text>`,
  );
  // A label centred on a tick near either edge would be cut: it is drawn from (or up to) its tick instead.
  const anchor = (t: number) => (x(t) - LEFT < 24 ? "start" : W - RIGHT - x(t) < 24 ? "end" : "middle");
  const xLabels = timeTicks(t0, t1, 4).map(
    (t) =>
      `<line class="axis" x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${H - BOTTOM}" y2="${H - BOTTOM + 3}" /><text x="${x(t).toFixed(1)}" y="${H - 4}" text-anchor="${anchor(t)}">${escapeHtml(f.place.timeOfDay(t))}</text>`,
  );
  const line = values.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ");
  const dots = values.length === 1 ? `<circle cx="${x(values[0]!.t)}" cy="${y(values[0]!.v)}" r="2.5" />` : "";
  const limit =
    threshold === undefined
      ? ""
      : `<line class="slo" x1="${LEFT}" x2="${W - RIGHT}" y1="${y(threshold.value).toFixed(1)}" y2="${y(threshold.value).toFixed(1)}" /><text class="slo-label" x="${W - RIGHT - 2}" y="${(y(threshold.value) - 3).toFixed(1)}" text-anchor="end">${escapeHtml(threshold.label)}</text>`;
  return `<figure><figcaption>${escapeHtml(title)} (${escapeHtml(unit)})</figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(title)}">
${grid.join("")}<line class="axis" x1="${LEFT}" x2="${W - RIGHT}" y1="${H - BOTTOM}" y2="${H - BOTTOM}" />${xLabels.join("")}
<polyline points="${line}" />${dots}${limit}</svg></figure>`;
}

// Two charts a row, short tables: a run's report fits its first page where the dashboard's does (one page of charts
// used to push the last one and the plan onto a second page that was mostly blank).
const STYLE = `@page{size:A4;margin:12mm}body{font:10pt "Liberation Sans",Arial,sans-serif;color:#111;margin:0}h1{font-size:16pt;margin:0 0 4px}h2{font-size:11.5pt;margin:14px 0 5px;break-after:avoid}
.muted{color:#555}.headline{font-size:11.5pt;margin:8px 0;padding:7px 10px;border-left:4px solid #444;background:#f4f4f4}
table{border-collapse:collapse;width:100%;margin:4px 0}th,td{border-bottom:1px solid #ddd;padding:2px 6px;text-align:left;font-size:9pt}
.charts{display:grid;grid-template-columns:1fr 1fr;gap:6px 16px}figure{margin:4px 0;break-inside:avoid}figcaption{font-weight:bold;font-size:9pt}svg{width:100%;height:auto}
polyline{fill:none;stroke:#1f5fbf;stroke-width:1.3}circle{fill:#1f5fbf}.axis{stroke:#999}.grid{stroke:#e3e3e3}.slo{stroke:#bf3989;stroke-dasharray:5 4;stroke-width:1.2}
text{font-size:7.5px;fill:#555}text.slo-label{fill:#bf3989;font-weight:bold}.note{white-space:pre-wrap}.facts{display:grid;grid-template-columns:1fr 1fr;gap:0 16px}`;

/** A script's own figures (docs/protocols.md, "Scripted clients"), by its names: each timing's p50 and p99, each counter's total. */
function scriptFigures(f: PdfFormats, summary: NonNullable<RunView["summary"]>): string[][] {
  const { timings, counters } = scriptSummary(summary);
  return [
    ...timings.flatMap(({ name, p50Ms, p99Ms }) => [
      [`${name} p50`, f.ms(p50Ms)],
      [`${name} p99`, f.ms(p99Ms)],
    ]),
    ...counters.map(({ name, total }) => [`${name} total`, f.integer(total)]),
  ];
}

/**
 * A script's own metrics over time: each timing's p99 (and its p50 where an SLO judges it), each counter per second
 * (and its running total where a count SLO judges it, as that SLO's threshold is on the total), each SLO's line dashed.
 */
function scriptCharts(
  f: PdfFormats,
  series: readonly SeriesPoint[],
  threshold: (metric: SloMetric) => ChartThreshold | undefined,
): string[] {
  const { histograms, counters } = scriptMetricNames(series);
  const timing = (name: string, stat: "p50" | "p99") =>
    chart(f, `${name} ${stat}`, series, (p) => scriptValue(p, name, stat), "ms", threshold(scriptSloId(name, stat)));
  return [
    ...histograms.flatMap((name) => [
      ...(threshold(scriptSloId(name, "p50")) === undefined ? [] : [timing(name, "p50")]),
      timing(name, "p99"),
    ]),
    ...counters.flatMap((name) => {
      const total = threshold(scriptSloId(name, "count"));
      const totals = total === undefined ? [] : scriptRunningTotals(series, name);
      return [
        chart(f, `${name} per second`, series, (p) => scriptValue(p, name, "count") ?? 0, "count/s"),
        ...(total === undefined
          ? []
          : [chart(f, `${name} running total`, series, (_p, index) => totals[index]!, "count", total)]),
      ];
    }),
  ];
}

/** Each rate an SLO judges (error rate, loss rate) per second in percent, as the judge reads it, with its threshold in percent: the run page's rates chart. */
function rateCharts(
  f: PdfFormats,
  series: readonly SeriesPoint[],
  slos: PlanSpec["slos"],
  threshold: (metric: SloMetric) => ChartThreshold | undefined,
): string[] {
  const rates = (slos ?? []).filter(
    (slo, i, all) =>
      sloMetricSpec(slo.metric)?.unit === "ratio" && all.findIndex((other) => other.metric === slo.metric) === i,
  );
  return rates.map((slo) =>
    chart(
      f,
      sloMetricName(slo.metric),
      series,
      (p) => {
        const rate = measuredOfPoint(p)(slo.metric);
        return rate === null ? null : inChartUnit(slo.metric, rate);
      },
      "%",
      threshold(slo.metric),
    ),
  );
}

/**
 * A section per network cohort (docs/networks.md), as the dashboard's report has them: its network as planned and how
 * it was applied, its own figures, the SLOs naming it, and its latency p99 over time with those SLOs' lines.
 */
function cohortsHtml(f: PdfFormats, run: RunView, series: readonly SeriesPoint[]): string {
  const format = { integer: f.integer, ms: f.ms, percent: f.percent, decimal: f.place.decimal };
  const latency = cohortLatencyRead(run.spec.scenario.kind);
  return cohortSections(run, format)
    .map((section) => {
      const slo =
        latency &&
        (run.spec.slos ?? []).find(
          (candidate) => candidate.cohort === section.name && candidate.metric === latency.slo,
        );
      const line = slo
        ? {
            value: inChartUnit(slo.metric, slo.below),
            label: `SLO: ${sloMetricName(slo.metric)} < ${f.sloValue(slo.metric, slo.below)}`,
          }
        : undefined;
      const applied = section.applied
        ? `; applied ${section.applied}${section.aboveStream ? ` (${ABOVE_STREAM_NOTE})` : ""}`
        : "";
      return `<h2>Network cohort ${escapeHtml(section.name)}</h2><p>${escapeHtml(`${section.size}: ${section.conditions}${applied}`)}</p>
${
  section.figures.length
    ? table(
        ["Figure", "Value"],
        section.figures.map((figure) => [figure.label, figure.value]),
      )
    : `<p class="muted">Nothing was measured of this cohort's clients.</p>`
}
${section.slos.length ? sloTable(f, section.slos) : ""}
${latency && series.length ? `<div class="charts">${chart(f, `${latency.words} p99, cohort ${section.name}`, series, (p) => latency.read(p.cohorts?.[section.name]), "ms", line)}</div>` : ""}`;
    })
    .join("\n");
}

function sloTable(f: PdfFormats, slos: NonNullable<RunView["verdict"]>["slos"]): string {
  return table(
    ["SLO", "Threshold", "Measured", "Status", "Seconds"],
    slos.map((slo) => [
      sloName(slo),
      `below ${f.sloValue(slo.metric, slo.below)}`,
      f.sloValue(slo.metric, slo.value),
      slo.status ?? (slo.passed ? "met" : "breached"),
      `broke in ${slo.breachedSeconds} of ${slo.measuredSeconds} s`,
    ]),
  );
}

const targetText = (target: PlanSpec["target"]) =>
  `${target.protocol} ${"url" in target ? target.url : `${target.host}:${target.port}`}`;

/**
 * What a PDF covers, said on its first page: the whole run, whatever range the report page was zoomed to (a zoom is
 * a way of looking, kept in the page's link; the PDF is the run's document, the same for whoever prints it).
 */
export const WHOLE_RUN =
  "This PDF covers the whole run, every second from its start to its end; a range zoomed on the report page is not narrowed here (share the page's link for that).";

/** The printable report of one run, for a reader in `reader`'s locale and time zone (the runtime's own when left out). */
export function reportHtml(
  report: RunReport,
  reader: ReaderPlace = {},
  distributions: readonly { name: string; distribution: LatencyDistribution }[] = [],
): string {
  const f = pdfFormats(reader);
  const { run, series } = report;
  const summary = run.summary;
  const slos = run.verdict?.slos ?? [];
  // The charts are the whole run's: an SLO scoped to a network cohort is not drawn on them (as on the run page).
  const wholeRunSlos = (run.spec.slos ?? []).filter((slo) => slo.cohort === undefined);
  const threshold = (metric: SloMetric): ChartThreshold | undefined => {
    const slo = wholeRunSlos.find((candidate) => candidate.metric === metric);
    return (
      slo && {
        value: inChartUnit(metric, slo.below),
        label: `SLO: ${sloMetricName(metric)} < ${f.sloValue(metric, slo.below)}`,
      }
    );
  };
  const kind = run.spec.scenario.kind;
  const metrics = scenarioMetrics(kind);
  const metricText = (metric: ScenarioMetric, value: number | null) =>
    metric.unit === "ms" ? f.ms(value) : f.percent(value);
  // Scenario-first: the scenario's own figures lead; round trips only where clients time them, messages only where counted.
  const figures: string[][] = summary
    ? [
        ["Peak clients", f.integer(summary.peakClients)],
        ["Duration", f.place.duration(summary.durationSec)],
        ...metrics.map((metric) => [metric.label, metricText(metric, metric.read(summary))]),
        ...scriptFigures(f, summary),
        ...(countsMessages(kind) ? [["Messages per second", f.rate(summary.messagesPerSec)]] : []),
        ...(hasRoundTrips(kind)
          ? [
              ["Round trip p50", f.ms(summary.rttP50Ms)],
              ["Round trip p99", f.ms(summary.rttP99Ms)],
            ]
          : []),
        ["Errors", f.integer(summary.errors)],
        ["Connections failed", f.integer(summary.connectionsFailed)],
        ["Agents", f.integer(summary.agents)],
      ]
    : [];
  const charts = [
    ...metrics.map((metric) =>
      metric.unit === "ms"
        ? chart(
            f,
            metric.label,
            series,
            (p) => metric.read(p),
            "ms",
            metric.slo === undefined ? undefined : threshold(metric.slo),
          )
        : chart(
            f,
            metric.label,
            series,
            (p) => {
              const value = metric.read(p);
              return value === null ? null : value * 100;
            },
            "%",
          ),
    ),
    ...rateCharts(f, series, wholeRunSlos, threshold),
    ...scriptCharts(f, series, threshold),
    ...(hasRoundTrips(kind)
      ? [chart(f, "Round trip p99", series, (p) => p.rttP99Ms, "ms", threshold("rtt-p99-ms"))]
      : []),
    ...(countsMessages(kind)
      ? [chart(f, "Messages received per second", series, (p) => p.messagesReceivedPerSec, "msg/s")]
      : []),
    chart(f, "Clients", series, (p) => p.clients, "clients"),
  ];
  const capacity = run.capacity;
  const by = run.startedByName ?? run.startedBy;
  return `<!doctype html><html lang="${escapeHtml(f.place.locale)}"><head><meta charset="utf-8"><title>Report: ${escapeHtml(run.planName)}</title><style>${STYLE}</style></head><body>
<h1>Report: ${escapeHtml(run.planName)}</h1>
<p class="muted">Run ${escapeHtml(run.id)} · ${escapeHtml(run.status)} · ${escapeHtml(runTimes(run, f.place.dateTime))}${by ? ` · by ${escapeHtml(by)}` : ""}</p>
<p class="muted" data-scope="whole-run">${escapeHtml(WHOLE_RUN)}</p>
<p class="headline">${escapeHtml(sharedHeadline(run, f))}</p>
${run.tags.length ? `<p class="muted">Tags: ${run.tags.map(escapeHtml).join(", ")}</p>` : ""}
${run.note ? `<h2>Note</h2><p class="note">${escapeHtml(run.note)}</p>` : ""}
${slos.length ? `<h2>SLOs</h2>${sloTable(f, slos)}` : ""}
${
  capacity
    ? `<h2>Capacity estimate</h2><p>${escapeHtml(f.words(capacity.sentence))}</p>${table(
        ["Step", "Clients", "Held"],
        capacity.steps.map((step) => [String(step.step), f.integer(step.clients), step.held ? "yes" : "no"]),
      )}`
    : ""
}
${figures.length ? `<h2>Figures</h2><div class="facts">${table(["Figure", "Value"], figures.slice(0, Math.ceil(figures.length / 2)))}${table(["Figure", "Value"], figures.slice(Math.ceil(figures.length / 2)))}</div>` : ""}
${sessionStepsHtml(f, run)}
<h2>Over time</h2>
<div class="charts">${charts.join("\n")}</div>
${distributions.some(({ distribution }) => distribution.stats.count > 0) ? `<h2>Latency distribution (whole run)</h2><div class="charts">${distributionFigures(f, distributions)}</div>` : ""}
${cohortsHtml(f, run, series)}
<h2>Plan</h2>${table(
    ["", ""],
    [
      ["Target", targetText(run.spec.target)],
      ["Scenario", run.spec.scenario.kind],
      ["Clients", f.integer(run.spec.load.clients)],
      ["Duration", f.place.duration(run.spec.load.durationSec)],
    ],
  )}
</body></html>`;
}
