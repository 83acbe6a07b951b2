"use client";

import { Fragment, useMemo, useState, type ReactNode } from "react";
import type { AgentView } from "@throng/protocol/api";
import type { Slo } from "@throng/protocol/plan";
import type { RunEventView } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import {
  AGENT_LINES,
  BYTE_LINES,
  CONNECTION_LINES,
  ERROR_LINES,
  MESSAGE_LINES,
  RTT_LINES,
  agentCpuLines,
  eventMarkers,
  healthAgentIds,
  latencyLines,
  latencyNames,
  stepMarkers,
  type ChartLine,
  type TimeMarker,
} from "../../lib/charts/series";
import { runMarkers } from "../../lib/charts/run-annotations";
import { causeLines, causeNames, DELIVERY_LINES, hasDelivery } from "../../lib/runs/series-causes";
import { hasCorrectedRtt, RTT_CORRECTED_LINES } from "../../lib/runs/series-rtt";
import { scriptCountLines, scriptLatencyLines, scriptMetricNames } from "../../lib/runs/series-script";
import { chartOrder, hasRoundTrips, type ChartId, type ScenarioKind } from "../../lib/runs/scenario-view";
import { sloRateLines, sloThresholds, type SloChart, type Threshold } from "../../lib/charts/slo-live";
import { ZoomBar } from "../charts/chart-zoom";
import { SeriesChart, type ChartUnit } from "../charts/series-chart";

interface RunChartsProps {
  points: readonly SeriesPoint[];
  span: readonly [number, number] | null;
  events: readonly RunEventView[];
  agents: readonly AgentView[];
  /** The plan's scenario: what its charts lead with, and whether it has round trips to chart at all. */
  scenario: ScenarioKind;
  slos?: readonly Slo[];
  /** The run's note: its lines that begin with a time are marked on the charts. */
  note?: string;
}

const NO_SLOS: readonly Slo[] = [];

/**
 * Every chart's markers: the run's events (stage changes, lost agents, an abort), capacity steps, the note's timed
 * lines and saturated agents (lib/charts/run-annotations.ts). The server's charts take the same.
 */
export function useRunMarkers(
  events: readonly RunEventView[],
  points: readonly SeriesPoint[],
  note: string,
  span: readonly [number, number] | null,
  agents: readonly AgentView[],
): TimeMarker[] {
  const start = span?.[0] ?? null;
  const namesKey = agents.map((agent) => `${agent.id}=${agent.hostname}`).join(",");
  return useMemo(() => {
    const names = new Map(namesKey ? namesKey.split(",").map((pair) => pair.split("=") as [string, string]) : []);
    return runMarkers({
      events: eventMarkers(events),
      steps: stepMarkers(points),
      note,
      start,
      points,
      name: (id) => names.get(id) ?? id.slice(0, 8),
    });
  }, [events, points, note, start, namesKey]);
}

/**
 * The run's charts, one point per second, with what happened marked on the time axis (useRunMarkers). Latencies
 * besides RTT and per-agent health appear as soon as the seconds carry them.
 */
export function RunCharts({ points, span, events, agents, scenario, slos = NO_SLOS, note = "" }: RunChartsProps) {
  const markers = useRunMarkers(events, points, note, span, agents);
  const lines: RunChartLines = {
    latency: useLatencyLines(points),
    cpu: useAgentCpuLines(points, agents),
    causes: useCauseLines(points),
    delivery: useMemo(() => hasDelivery(points), [points]),
    script: useScriptLines(points),
    ...useSloLines(slos),
  };
  const charts = chartsById({ points, span, markers }, lines, scenario);
  return (
    <section aria-labelledby="charts-title">
      <h2 id="charts-title" className="sr-only">
        Charts
      </h2>
      <ZoomBar />
      <div className="chart-grid" data-testid="chart-grid">
        {chartOrder(scenario).map((id) => charts[id] && <Fragment key={id}>{charts[id]}</Fragment>)}
      </div>
    </section>
  );
}

/** What every chart of the run draws on: its seconds, the run's planned window and the markers. */
interface ChartBase {
  points: readonly SeriesPoint[];
  span: readonly [number, number] | null;
  markers: readonly TimeMarker[];
}

/** What some charts add to their lines: the unit they are drawn in and the SLOs' thresholds on them. */
type SeriesChartExtras = { unit?: ChartUnit; thresholds?: Threshold[] };

type SloChartThresholds = Record<"rtt" | "latency" | "rates" | "script", Threshold[]>;

/** The lines that come and go with what the seconds carry, and the plan's SLOs drawn on the charts. */
interface RunChartLines {
  latency: ChartLine[];
  cpu: ChartLine[];
  causes: ChartLine[];
  delivery: boolean;
  script: { latency: ChartLine[]; counts: ChartLine[] };
  thresholds: SloChartThresholds;
  rates: ChartLine[];
}

// Each line set below is keyed by the names it draws: it changes only when a new latency, agent, cause or script
// metric appears, so the plots are not rebuilt every second.

function useLatencyLines(points: readonly SeriesPoint[]): ChartLine[] {
  const latencyKey = useMemo(() => latencyNames(points).join(","), [points]);
  return useMemo(() => latencyLines(latencyKey ? latencyKey.split(",") : []), [latencyKey]);
}

function useAgentCpuLines(points: readonly SeriesPoint[], agents: readonly AgentView[]): ChartLine[] {
  const healthIds = useMemo(() => healthAgentIds(points), [points]);
  const names = new Map(agents.map((agent) => [agent.id, agent.hostname]));
  const healthKey = healthIds.map((id) => `${id}=${names.get(id) ?? id.slice(0, 8)}`).join(",");
  return useMemo(() => {
    const pairs = healthKey ? healthKey.split(",").map((pair) => pair.split("=") as [string, string]) : [];
    const byId = new Map(pairs);
    return agentCpuLines([...byId.keys()], (id) => byId.get(id) ?? id);
  }, [healthKey]);
}

function useCauseLines(points: readonly SeriesPoint[]): ChartLine[] {
  const causeKey = useMemo(() => JSON.stringify(causeNames(points)), [points]);
  return useMemo(() => {
    const { errors, closes } = JSON.parse(causeKey) as { errors: string[]; closes: string[] };
    return causeLines(errors, closes);
  }, [causeKey]);
}

function useScriptLines(points: readonly SeriesPoint[]): RunChartLines["script"] {
  const scriptKey = useMemo(() => JSON.stringify(scriptMetricNames(points)), [points]);
  return useMemo(() => {
    const { histograms, counters } = JSON.parse(scriptKey) as { histograms: string[]; counters: string[] };
    return { latency: scriptLatencyLines(histograms), counts: scriptCountLines(counters) };
  }, [scriptKey]);
}

/** The SLOs' thresholds on each chart and the rate SLOs' own lines. */
function useSloLines(slos: readonly Slo[]): Pick<RunChartLines, "thresholds" | "rates"> {
  // Keyed by content: a refetched run brings equal SLOs in new objects, and the plots need not redraw for them.
  const sloKey = JSON.stringify(slos);
  return useMemo(() => {
    const held = JSON.parse(sloKey) as Slo[];
    const on = (chart: SloChart) => sloThresholds(held, chart);
    return {
      thresholds: { rtt: on("rtt"), latency: on("latency"), rates: on("rates"), script: on("script-latency") },
      rates: sloRateLines(held),
    };
  }, [sloKey]);
}

/** Each chart the run can show, or false where its seconds carry nothing for it; chartOrder picks and orders them. */
function chartsById(base: ChartBase, lines: RunChartLines, scenario: ScenarioKind): Record<ChartId, ReactNode> {
  const { thresholds } = lines;
  // One series chart of the run's seconds; `more` sets its unit and SLO thresholds where it has them.
  const chart = (testId: string, title: string, chartLines: readonly ChartLine[], more: SeriesChartExtras = {}) => (
    <SeriesChart testId={testId} title={title} lines={chartLines} {...base} {...more} />
  );
  // A chart of lines that come with the seconds: drawn once they carry at least one.
  const whenAny = (chartLines: readonly ChartLine[], testId: string, title: string, more?: SeriesChartExtras) =>
    chartLines.length > 0 && chart(testId, title, chartLines, more);
  return {
    connections: chart("chart-connections", "Clients and connections", CONNECTION_LINES),
    messages: chart("chart-messages", "Messages per second", MESSAGE_LINES),
    rtt: <RttChart {...base} thresholds={thresholds.rtt} />,
    bytes: chart("chart-bytes", "Bytes per second", BYTE_LINES, { unit: "bytes" }),
    errors: chart("chart-errors", "Errors per second", ERROR_LINES),
    // The rate SLOs' own unit (percent of attempts), which the errors-per-second chart cannot carry.
    rates: whenAny(lines.rates, "chart-rates", "Error and loss rate (%), as the SLOs judge them", {
      thresholds: thresholds.rates,
    }),
    agents:
      lines.cpu.length > 0
        ? chart("chart-agent-health", "Agent CPU (100 % = one core)", lines.cpu)
        : chart("chart-agents", "Agents reporting", AGENT_LINES),
    causes: whenAny(lines.causes, "chart-causes", "Errors and disconnects by cause, per second"),
    delivery:
      lines.delivery &&
      chart("chart-delivery", "Delivery: broadcast reach (%), lost, duplicates, out of order", DELIVERY_LINES),
    "script-latency": whenAny(
      lines.script.latency,
      "chart-script-latency",
      "Script timings (ctx.measure), p50 and p99",
      { unit: "ms", thresholds: thresholds.script },
    ),
    "script-counts": whenAny(lines.script.counts, "chart-script-counts", "Script counters (ctx.count), per second"),
    latency: whenAny(
      lines.latency,
      "chart-latency",
      hasRoundTrips(scenario) ? "Other latencies, p99" : "Latencies, p99",
      { unit: "ms", thresholds: thresholds.latency },
    ),
  };
}

/**
 * Round-trip time, with a switch to the times measured from the intended send time (coordinated-omission corrected)
 * once the seconds carry them. The plot is rebuilt when the switch flips: its lines are a different set.
 */
function RttChart({ thresholds, ...base }: ChartBase & { thresholds: Threshold[] }) {
  const [corrected, setCorrected] = useState(false);
  const canCorrect = useMemo(() => hasCorrectedRtt(base.points), [base.points]);
  const showCorrected = corrected && canCorrect;
  const rttLines = showCorrected ? RTT_CORRECTED_LINES : RTT_LINES;
  const rttTitle = `Round-trip time ${rttLines.map((line) => line.label).join(", ")}${showCorrected ? ", from the intended send time (coordinated-omission corrected)" : ""}`;
  return (
    <SeriesChart
      key={showCorrected ? "corrected" : "raw"}
      testId="chart-rtt"
      title={rttTitle}
      lines={rttLines}
      {...base}
      unit="ms"
      thresholds={thresholds}
      controls={
        canCorrect && (
          <label className="chart-switch">
            <input
              type="checkbox"
              checked={corrected}
              onChange={(event) => setCorrected(event.target.checked)}
              data-testid="rtt-corrected-switch"
            />{" "}
            Corrected for coordinated omission (measured from the intended send time)
          </label>
        )
      }
    />
  );
}
