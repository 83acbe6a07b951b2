"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { toColumns, type ChartLine } from "../lib/series";

interface SeriesChartProps {
  testId: string;
  title: string;
  lines: readonly ChartLine[];
  points: readonly SeriesPoint[];
  height?: number;
}

const SECOND_INCREMENTS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];

function options(lines: readonly ChartLine[], width: number, height: number): uPlot.Options {
  return {
    width,
    height,
    scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
    // Points are whole seconds, so ticks are too.
    axes: [{ incrs: SECOND_INCREMENTS, space: 70 }, { size: 60 }],
    series: [
      {},
      ...lines.map((line) => ({ label: line.label, stroke: line.color, width: 2, points: { show: false } })),
    ],
    cursor: { drag: { x: false, y: false } },
    legend: { live: false },
  };
}

/**
 * One uPlot chart over the run's seconds. The plot is created once, fed with setData as points
 * arrive, resized with its container and destroyed on unmount. `data-points` on the container
 * says how many points the plot has actually drawn.
 */
export function SeriesChart({ testId, title, lines, points, height = 220 }: SeriesChartProps) {
  const canvasRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const [drawn, setDrawn] = useState(0);
  const data = useMemo(() => toColumns(points, lines) as uPlot.AlignedData, [points, lines]);
  const dataRef = useRef(data);
  const titleId = `${testId}-title`;

  useEffect(() => {
    const element = canvasRef.current;
    if (!element) return;
    const plot = new uPlot(options(lines, element.clientWidth || 600, height), dataRef.current, element);
    plotRef.current = plot;
    setDrawn(dataRef.current[0].length);
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

  useEffect(() => {
    dataRef.current = data;
    const plot = plotRef.current;
    if (!plot) return;
    plot.setData(data);
    setDrawn(data[0].length);
  }, [data]);

  return (
    <section className="chart" aria-labelledby={titleId} data-testid={testId} data-points={drawn}>
      <h2 id={titleId}>{title}</h2>
      {drawn === 0 && <p className="chart-empty">Waiting for the first second of measurements…</p>}
      <div className="chart-canvas" ref={canvasRef} role="img" aria-label={`${title} chart`} />
    </section>
  );
}
