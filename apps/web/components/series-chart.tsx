"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { toColumns, xRange, type ChartLine } from "../lib/series";

interface SeriesChartProps {
  testId: string;
  title: string;
  lines: readonly ChartLine[];
  points: readonly SeriesPoint[];
  /** Epoch seconds the x axis should at least cover (the run's planned window). */
  span?: readonly [number, number] | null;
  height?: number;
}

const SECOND_INCREMENTS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];

function options(lines: readonly ChartLine[], width: number, height: number): uPlot.Options {
  return {
    width,
    height,
    scales: {
      x: { time: true },
      y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] },
    },
    // Points are whole seconds, so ticks are too.
    axes: [{ incrs: SECOND_INCREMENTS, space: 70 }, { size: 60 }],
    series: [
      {},
      // uPlot shows point markers only while points are sparse, so the first seconds are visible.
      ...lines.map((line) => ({
        label: line.label,
        stroke: line.color,
        width: 2,
        ...(line.dash ? { dash: line.dash } : {}),
      })),
    ],
    cursor: { drag: { x: false, y: false } },
    legend: { live: false },
  };
}

/** Feeds the plot and widens x to the planned window, so a live run's lines grow left to right. */
function draw(plot: uPlot, data: uPlot.AlignedData, span: SeriesChartProps["span"]) {
  const range = xRange(data[0], span);
  plot.batch(() => {
    plot.setData(data);
    if (range) plot.setScale("x", { min: range[0], max: range[1] });
  });
}

/**
 * One uPlot chart over the run's seconds. The plot is created once, fed with setData as points
 * arrive, resized with its container and destroyed on unmount. `data-points` on the container
 * says how many points the plot has actually drawn.
 */
export function SeriesChart({ testId, title, lines, points, span, height = 220 }: SeriesChartProps) {
  const canvasRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const [drawn, setDrawn] = useState(0);
  const data = useMemo(() => toColumns(points, lines) as uPlot.AlignedData, [points, lines]);
  const latest = useRef({ data, span });
  const titleId = `${testId}-title`;

  useEffect(() => {
    const element = canvasRef.current;
    if (!element) return;
    const plot = new uPlot(options(lines, element.clientWidth || 600, height), [[]], element);
    plotRef.current = plot;
    draw(plot, latest.current.data, latest.current.span);
    setDrawn(latest.current.data[0].length);
    const observer = new ResizeObserver(() => {
      if (element.clientWidth > 0) plot.setSize({ width: element.clientWidth, height });
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
      plotRef.current = null;
    };
  }, [lines, height]);

  const [spanFrom, spanTo] = span ?? [null, null];
  useEffect(() => {
    latest.current = { data, span: spanFrom === null || spanTo === null ? null : [spanFrom, spanTo] };
    const plot = plotRef.current;
    if (!plot) return;
    draw(plot, latest.current.data, latest.current.span);
    setDrawn(data[0].length);
  }, [data, spanFrom, spanTo]);

  return (
    <section className="chart" aria-labelledby={titleId} data-testid={testId} data-points={drawn}>
      <h2 id={titleId}>{title}</h2>
      {drawn === 0 && <p className="chart-empty">Waiting for the first second of measurements…</p>}
      <div className="chart-canvas" ref={canvasRef} role="img" aria-label={`${title} chart`} />
    </section>
  );
}
