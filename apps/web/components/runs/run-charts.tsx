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
import {
  causeLines,
  causeNames,
  DELIVERY_LINES,
  hasCorrectedRtt,
  hasDelivery,
  RTT_CORRECTED_LINES,
} from "../../lib/runs/series-causes";
import { scriptCountLines, scriptLatencyLines, scriptMetricNames } from "../../lib/runs/series-script";
import { chartOrder, hasRoundTrips, type ChartId, type ScenarioKind } from "../../lib/runs/scenario-view";
import { sloRateLines, sloThresholds, type SloChart, type Threshold } from "../../lib/charts/slo-live";
import { ZoomBar } from "../charts/chart-zoom";
import { SeriesChart } from "../charts/series-chart";

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
  return {
    connections: (
      <SeriesChart testId="chart-connections" title="Clients and connections" lines={CONNECTION_LINES} {...base} />
    ),
    messages: <SeriesChart testId="chart-messages" title="Messages per second" lines={MESSAGE_LINES} {...base} />,
    rtt: <RttChart {...base} thresholds={thresholds.rtt} />,
    bytes: <SeriesChart testId="chart-bytes" title="Bytes per second" lines={BYTE_LINES} {...base} unit="bytes" />,
    errors: <SeriesChart testId="chart-errors" title="Errors per second" lines={ERROR_LINES} {...base} />,
    // The rate SLOs' own unit (percent of attempts), which the errors-per-second chart cannot carry.
    rates: lines.rates.length > 0 && (
      <SeriesChart
        testId="chart-rates"
        title="Error and loss rate (%), as the SLOs judge them"
        lines={lines.rates}
        {...base}
        thresholds={thresholds.rates}
      />
    ),
    agents:
      lines.cpu.length > 0 ? (
        <SeriesChart testId="chart-agent-health" title="Agent CPU (100 % = one core)" lines={lines.cpu} {...base} />
      ) : (
        <SeriesChart testId="chart-agents" title="Agents reporting" lines={AGENT_LINES} {...base} />
      ),
    causes: lines.causes.length > 0 && (
      <SeriesChart
        testId="chart-causes"
        title="Errors and disconnects by cause, per second"
        lines={lines.causes}
        {...base}
      />
    ),
    delivery: lines.delivery && (
      <SeriesChart
        testId="chart-delivery"
        title="Delivery: broadcast reach (%), lost, duplicates, out of order"
        lines={DELIVERY_LINES}
        {...base}
      />
    ),
    "script-latency": lines.script.latency.length > 0 && (
      <SeriesChart
        testId="chart-script-latency"
        title="Script timings (ctx.measure), p50 and p99"
        lines={lines.script.latency}
        {...base}
        unit="ms"
        thresholds={thresholds.script}
      />
    ),
    "script-counts": lines.script.counts.length > 0 && (
      <SeriesChart
        testId="chart-script-counts"
        title="Script counters (ctx.count), per second"
        lines={lines.script.counts}
        {...base}
      />
    ),
    latency: lines.latency.length > 0 && (
      <SeriesChart
        testId="chart-latency"
        title={hasRoundTrips(scenario) ? "Other latencies, p99" : "Latencies, p99"}
        lines={lines.latency}
        {...base}
        unit="ms"
        thresholds={thresholds.latency}
      />
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
