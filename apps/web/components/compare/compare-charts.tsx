"use client";

import { useMemo, useRef } from "react";
import type uPlot from "uplot";
import type { RunComparison } from "@throng/protocol/report";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { useApiQuery } from "../../hooks/use-api-query";
import { useUPlot } from "../../hooks/use-uplot";
import { useViewRange } from "../../hooks/use-view-range";
import { zoomedXRange } from "../../lib/charts/chart-range";
import { zoomOptions, type PlotZoom } from "../../lib/charts/chart-zoom-plot";
import type { ViewRange } from "../../lib/charts/view-range";
import { api } from "../../lib/shared/api";
import { alignAtStart, OVERLAID_FIGURES, runColour, type OverlaidFigure } from "../../lib/compare/compare-series";
import { formatDateTime, formatDuration, formatMs } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { formatAxisCount } from "../../lib/charts/series";
import { showLatest } from "../charts/series-chart";
import { rangeText, ZoomRangeBar } from "../charts/chart-zoom";

type ComparedRun = RunComparison["runs"][number];
const WHOLE_SECONDS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14_400, 28_800, 86_400];

const runLabel = (run: ComparedRun, index: number) =>
  `${index + 1}. ${run.planName} · ${formatDateTime(run.createdAt)}`;

/** Each series' last second with a value (a shorter run's line ends before the longest one's). */
function lastValueIndexes(data: uPlot.AlignedData): number[] {
  return data.map((values) => {
    for (let i = values.length - 1; i >= 0; i--) if (values[i] != null) return i;
    return -1;
  });
}

/**
 * One figure, one line per run, x in seconds since each run's start; uPlot's legend names each run in its colour.
 * A drag zooms every chart of the page into those seconds since start (the URL's ?from=&to=, as a run's page).
 */
function OverlaidChart({
  figure,
  runs,
  series,
  range,
  select,
}: {
  figure: OverlaidFigure;
  runs: readonly ComparedRun[];
  series: readonly (readonly SeriesPoint[])[];
  range: ViewRange | null;
  select: (range: ViewRange | null) => void;
}) {
  const data = useMemo(() => alignAtStart(series, figure.value) as uPlot.AlignedData, [series, figure]);
  // Seconds since start count from 0, so the zoom's start is 0; the plot reads it through a ref, as run charts do.
  const zoom = useRef<PlotZoom>({ start: 0, range, select });
  zoom.current = { start: 0, range, select };
  const options = useMemo((): Omit<uPlot.Options, "width"> => {
    const format = figure.unit === "ms" ? formatMs : formatAxisCount;
    const zooming = zoomOptions(zoom);
    const lastValue = lastValueIndexes(data);
    // Short labels: the key above the charts names each run once; "ended" where a shorter run has no such second.
    const value = (_u: uPlot, v: number | null, seriesIndex: number, index: number | null) =>
      v !== null ? format(v) : index != null && index > (lastValue[seriesIndex] ?? -1) ? "ended" : "—";
    return {
      height: 200,
      padding: [8, 24, 0, 0],
      scales: {
        x: { time: false, range: (_u, min, max) => (range ? zoomedXRange(0, range) : [min, max]) },
        y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] },
      },
      axes: [
        // Whole seconds only: a zoom of a few seconds would otherwise tick every half second, each read "3 s" twice.
        { space: 70, incrs: WHOLE_SECONDS, values: (_u, splits) => splits.map((seconds) => formatDuration(seconds)) },
        { size: 70, values: (_u, splits) => splits.map(format) },
      ],
      series: [
        { label: "Since start", value: (_u, value) => (value === null ? "—" : formatDuration(value)) },
        ...runs.map((_run, index) => ({ label: `Run ${index + 1}`, stroke: runColour(index), width: 2, value })),
      ],
      cursor: zooming.cursor,
      hooks: {
        setCursor: [showLatest],
        setData: [showLatest],
        ...zooming.hooks,
        // What the plot shows, for the journeys to read: the page's zoom must reach every chart's scale.
        ready: [
          (plot) => {
            const { min, max } = plot.scales.x ?? {};
            plot.root.dataset.xRange = `${min}..${max}`;
          },
        ],
      },
    };
  }, [figure, runs, data, range]);
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
  const [range, select] = useViewRange();
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
    <>
      <ZoomRangeBar range={range} select={select} showing={(shown) => `${rangeText(shown)} since each run's start`} />
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
          <OverlaidChart
            key={figure.key}
            figure={figure}
            runs={runs}
            series={series.data!}
            range={range}
            select={select}
          />
        ))}
      </div>
    </>
  );
}
