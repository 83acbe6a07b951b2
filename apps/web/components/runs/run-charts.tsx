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
import { sloRateLines, sloThresholds } from "../../lib/charts/slo-live";
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
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one component's chart grid; splitting it waits for the web regrouping (issue 29 follow-up).
export function RunCharts({ points, span, events, agents, scenario, slos = NO_SLOS, note = "" }: RunChartsProps) {
  const markers = useRunMarkers(events, points, note, span, agents);
  // Line sets change only when a new latency or agent appears, so the plots are not rebuilt every second.
  const latencyKey = useMemo(() => latencyNames(points).join(","), [points]);
  const healthIds = useMemo(() => healthAgentIds(points), [points]);
  const latency = useMemo(() => latencyLines(latencyKey ? latencyKey.split(",") : []), [latencyKey]);
  const names = new Map(agents.map((agent) => [agent.id, agent.hostname]));
  const healthKey = healthIds.map((id) => `${id}=${names.get(id) ?? id.slice(0, 8)}`).join(",");
  const cpu = useMemo(() => {
    const pairs = healthKey ? healthKey.split(",").map((pair) => pair.split("=") as [string, string]) : [];
    const byId = new Map(pairs);
    return agentCpuLines([...byId.keys()], (id) => byId.get(id) ?? id);
  }, [healthKey]);
  const causeKey = useMemo(() => JSON.stringify(causeNames(points)), [points]);
  const causes = useMemo(() => {
    const { errors, closes } = JSON.parse(causeKey) as { errors: string[]; closes: string[] };
    return causeLines(errors, closes);
  }, [causeKey]);
  const delivery = useMemo(() => hasDelivery(points), [points]);
  const scriptKey = useMemo(() => JSON.stringify(scriptMetricNames(points)), [points]);
  const script = useMemo(() => {
    const { histograms, counters } = JSON.parse(scriptKey) as { histograms: string[]; counters: string[] };
    return { latency: scriptLatencyLines(histograms), counts: scriptCountLines(counters) };
  }, [scriptKey]);
  // Keyed by content: a refetched run brings equal SLOs in new objects, and the plots need not redraw for them.
  const sloKey = JSON.stringify(slos);
  const { thresholds, rates } = useMemo(() => {
    const held = JSON.parse(sloKey) as Slo[];
    const on = (chart: Parameters<typeof sloThresholds>[1]) => sloThresholds(held, chart);
    return {
      thresholds: { rtt: on("rtt"), latency: on("latency"), rates: on("rates"), script: on("script-latency") },
      rates: sloRateLines(held),
    };
  }, [sloKey]);
  const [corrected, setCorrected] = useState(false);
  const canCorrect = useMemo(() => hasCorrectedRtt(points), [points]);
  const showCorrected = corrected && canCorrect;
  const rttLines = showCorrected ? RTT_CORRECTED_LINES : RTT_LINES;
  const rttTitle = `Round-trip time ${rttLines.map((line) => line.label).join(", ")}${showCorrected ? ", from the intended send time (coordinated-omission corrected)" : ""}`;

  const charts: Record<ChartId, ReactNode> = {
    connections: (
      <SeriesChart
        testId="chart-connections"
        title="Clients and connections"
        lines={CONNECTION_LINES}
        points={points}
        span={span}
        markers={markers}
      />
    ),
    messages: (
      <SeriesChart
        testId="chart-messages"
        title="Messages per second"
        lines={MESSAGE_LINES}
        points={points}
        span={span}
        markers={markers}
      />
    ),
    rtt: (
      <SeriesChart
        key={showCorrected ? "corrected" : "raw"}
        testId="chart-rtt"
        title={rttTitle}
        lines={rttLines}
        points={points}
        span={span}
        markers={markers}
        unit="ms"
        thresholds={thresholds.rtt}
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
    ),
    bytes: (
      <SeriesChart
        testId="chart-bytes"
        title="Bytes per second"
        lines={BYTE_LINES}
        points={points}
        span={span}
        markers={markers}
        unit="bytes"
      />
    ),
    errors: (
      <SeriesChart
        testId="chart-errors"
        title="Errors per second"
        lines={ERROR_LINES}
        points={points}
        span={span}
        markers={markers}
      />
    ),
    // The rate SLOs' own unit (percent of attempts), which the errors-per-second chart cannot carry.
    rates: rates.length > 0 && (
      <SeriesChart
        testId="chart-rates"
        title="Error and loss rate (%), as the SLOs judge them"
        lines={rates}
        points={points}
        span={span}
        markers={markers}
        thresholds={thresholds.rates}
      />
    ),
    agents:
      cpu.length > 0 ? (
        <SeriesChart
          testId="chart-agent-health"
          title="Agent CPU (100 % = one core)"
          lines={cpu}
          points={points}
          span={span}
          markers={markers}
        />
      ) : (
        <SeriesChart
          testId="chart-agents"
          title="Agents reporting"
          lines={AGENT_LINES}
          points={points}
          span={span}
          markers={markers}
        />
      ),
    causes: causes.length > 0 && (
      <SeriesChart
        testId="chart-causes"
        title="Errors and disconnects by cause, per second"
        lines={causes}
        points={points}
        span={span}
        markers={markers}
      />
    ),
    delivery: delivery && (
      <SeriesChart
        testId="chart-delivery"
        title="Delivery: broadcast reach (%), lost, duplicates, out of order"
        lines={DELIVERY_LINES}
        points={points}
        span={span}
        markers={markers}
      />
    ),
    "script-latency": script.latency.length > 0 && (
      <SeriesChart
        testId="chart-script-latency"
        title="Script timings (ctx.measure), p50 and p99"
        lines={script.latency}
        points={points}
        span={span}
        markers={markers}
        unit="ms"
        thresholds={thresholds.script}
      />
    ),
    "script-counts": script.counts.length > 0 && (
      <SeriesChart
        testId="chart-script-counts"
        title="Script counters (ctx.count), per second"
        lines={script.counts}
        points={points}
        span={span}
        markers={markers}
      />
    ),
    latency: latency.length > 0 && (
      <SeriesChart
        testId="chart-latency"
        title={hasRoundTrips(scenario) ? "Other latencies, p99" : "Latencies, p99"}
        lines={latency}
        points={points}
        span={span}
        markers={markers}
        unit="ms"
        thresholds={thresholds.latency}
      />
    ),
  };

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
