"use client";

import { useMemo } from "react";
import type uPlot from "uplot";
import type { RunComparison } from "@throng/protocol/report";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { useApiQuery } from "../../hooks/use-api-query";
import { useUPlot } from "../../hooks/use-uplot";
import { api } from "../../lib/shared/api";
import { alignAtStart, OVERLAID_FIGURES, runColour, type OverlaidFigure } from "../../lib/compare/compare-series";
import { formatDateTime, formatDuration, formatMs } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { formatAxisCount } from "../../lib/charts/series";
import { showLatest } from "../charts/series-chart";

type ComparedRun = RunComparison["runs"][number];

const runLabel = (run: ComparedRun, index: number) =>
  `${index + 1}. ${run.planName} · ${formatDateTime(run.createdAt)}`;

/** Each series' last second with a value (a shorter run's line ends before the longest one's). */
function lastValueIndexes(data: uPlot.AlignedData): number[] {
  return data.map((values) => {
    for (let i = values.length - 1; i >= 0; i--) if (values[i] != null) return i;
    return -1;
  });
}

/** One figure, one line per run, x in seconds since each run's start; uPlot's legend names each run in its colour. */
function OverlaidChart({
  figure,
  runs,
  series,
}: {
  figure: OverlaidFigure;
  runs: readonly ComparedRun[];
  series: readonly (readonly SeriesPoint[])[];
}) {
  const data = useMemo(() => alignAtStart(series, figure.value) as uPlot.AlignedData, [series, figure]);
  const options = useMemo((): Omit<uPlot.Options, "width"> => {
    const format = figure.unit === "ms" ? formatMs : formatAxisCount;
    const lastValue = lastValueIndexes(data);
    // Short labels: the key above the charts names each run once; "ended" where a shorter run has no such second.
    const value = (_u: uPlot, v: number | null, seriesIndex: number, index: number | null) =>
      v !== null ? format(v) : index != null && index > (lastValue[seriesIndex] ?? -1) ? "ended" : "—";
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
        ...runs.map((_run, index) => ({ label: `Run ${index + 1}`, stroke: runColour(index), width: 2, value })),
      ],
      cursor: { drag: { x: false, y: false }, sync: { key: "compare" } },
      hooks: { setCursor: [showLatest], setData: [showLatest] },
    };
  }, [figure, runs, data]);
  const canvasRef = useUPlot(options, data);

  const titleId = `compare-chart-${figure.key}-title`;
  return (
    <section
      className="chart"
      aria-labelledby={titleId}
      data-testid="compare-chart"
      data-figure={figure.key}
      data-runs={runs.length}
      data-seconds={data[0].length}
    >
      <h3 id={titleId}>{figure.title}</h3>
      <div
        className="chart-canvas"
        ref={canvasRef}
        role="img"
        aria-label={`${figure.title} of ${runs.length} runs over the seconds since each started`}
      />
    </section>
  );
}

/** The compared runs' seconds overlaid, aligned at their start: p99, throughput and errors, one colour per run. */
export function CompareCharts({ runs }: { runs: readonly ComparedRun[] }) {
  const ids = runs.map((run) => run.id);
  const series = useApiQuery(queryKeys.comparedSeries(ids), (signal) =>
    Promise.all(runs.map((run) => api.getSeries(run.id, signal).then((answer) => answer.points))),
  );
  if (series.error)
    return (
      <p className="alert" role="alert">
        {series.error}
      </p>
    );
  if (!series.data) return <p className="loading">Loading each run's seconds…</p>;
  return (
    <div className="compare-charts">
      <ul className="compare-key" data-testid="compare-key">
        {runs.map((run, index) => (
          <li key={run.id}>
            <span className="compare-swatch" style={{ background: runColour(index) }} aria-hidden="true" />
            Run {runLabel(run, index).replace(/^\d+\. /, `${index + 1}: `)}
          </li>
        ))}
      </ul>
      {OVERLAID_FIGURES.map((figure) => (
        <OverlaidChart key={figure.key} figure={figure} runs={runs} series={series.data!} />
      ))}
    </div>
  );
}
