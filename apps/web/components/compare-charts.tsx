"use client";

import { useMemo } from "react";
import type uPlot from "uplot";
import type { RunComparison } from "@throng/protocol/report";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { useApiData } from "../hooks/use-api-data";
import { useUPlot } from "../hooks/use-uplot";
import { api } from "../lib/api";
import { alignAtStart, OVERLAID_FIGURES, runColour, type OverlaidFigure } from "../lib/compare-series";
import { formatDateTime, formatDuration, formatMs } from "../lib/format";
import { formatAxisCount } from "../lib/series";

type ComparedRun = RunComparison["runs"][number];

const runLabel = (run: ComparedRun, index: number) => `${index + 1}. ${run.planName} · ${formatDateTime(run.createdAt)}`;

/** One figure, one line per run, x in seconds since each run's start; uPlot's legend names each run in its colour. */
function OverlaidChart({ figure, runs, series }: { figure: OverlaidFigure; runs: readonly ComparedRun[]; series: readonly (readonly SeriesPoint[])[] }) {
  const data = useMemo(() => alignAtStart(series, figure.value) as uPlot.AlignedData, [series, figure]);
  const options = useMemo((): Omit<uPlot.Options, "width"> => {
    const format = figure.unit === "ms" ? formatMs : formatAxisCount;
    return {
      height: 200,
      padding: [8, 24, 0, 0],
      scales: { x: { time: false }, y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
      axes: [
        { space: 70, values: (_u, splits) => splits.map((seconds) => formatDuration(seconds)) },
        { size: 70, values: (_u, splits) => splits.map(format) },
      ],
      series: [
        { label: "Since start", value: (_u, value) => (value === null ? "—" : formatDuration(value)) },
        ...runs.map((run, index) => ({ label: runLabel(run, index), stroke: runColour(index), width: 2, value: (_u: uPlot, value: number | null) => (value === null ? "—" : format(value)) })),
      ],
      cursor: { drag: { x: false, y: false }, sync: { key: "compare" } },
    };
  }, [figure, runs]);
  const canvasRef = useUPlot(options, data);

  const titleId = `compare-chart-${figure.key}-title`;
  return (
    <section className="chart" aria-labelledby={titleId} data-testid="compare-chart" data-figure={figure.key} data-runs={runs.length} data-seconds={data[0].length}>
      <h3 id={titleId}>{figure.title}</h3>
      <div className="chart-canvas" ref={canvasRef} role="img" aria-label={`${figure.title} of ${runs.length} runs over the seconds since each started`} />
    </section>
  );
}

/** The compared runs' seconds overlaid, aligned at their start: p99, throughput and errors, one colour per run. */
export function CompareCharts({ runs }: { runs: readonly ComparedRun[] }) {
  const ids = runs.map((run) => run.id).join(",");
  const series = useApiData((signal) => Promise.all(runs.map((run) => api.getSeries(run.id, signal).then((answer) => answer.points))), undefined, ids);
  if (series.error)
    return (
      <p className="alert" role="alert">
        {series.error}
      </p>
    );
  if (!series.data) return <p className="loading">Loading each run's seconds…</p>;
  return (
    <div className="compare-charts">
      {OVERLAID_FIGURES.map((figure) => (
        <OverlaidChart key={figure.key} figure={figure} runs={runs} series={series.data!} />
      ))}
    </div>
  );
}
