"use client";

import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { formatTimeOfDay } from "../lib/format";
import { plotXRange, plotYRange } from "../lib/chart-range";
import { extendColumns, formatAxisBytes, formatAxisCount, type ChartLine, type TimedPoint, type TimeMarker } from "../lib/series";
import type { Threshold } from "../lib/slo-live";

export type ChartUnit = "count" | "bytes" | "ms";

interface SeriesChartProps<P extends TimedPoint> {
  testId: string;
  title: string;
  lines: readonly ChartLine<P>[];
  points: readonly P[];
  /** Epoch seconds the x axis should at least cover (the run's planned window). */
  span?: readonly [number, number] | null;
  markers?: readonly TimeMarker[];
  unit?: ChartUnit;
  height?: number;
  /** Controls that change what this chart shows (a switch), drawn inside its card under the title. */
  controls?: ReactNode;
  /** The plan's SLOs on this chart's metric: a horizontal line each, in the chart's unit. */
  thresholds?: readonly Threshold[];
}

const SECOND_INCREMENTS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
const MARKER_COLOURS: Record<TimeMarker["kind"], string> = { stage: "#57606a", "agent-lost": "#cf222e", "agent-returned": "#1a7f37", aborted: "#9a6700", "search-ended": "#0969da", "seconds-lost": "#cf222e" };
const AXIS_FORMAT: Record<ChartUnit, (value: number) => string> = {
  count: formatAxisCount,
  bytes: (value) => `${formatAxisBytes(value)}/s`,
  ms: (value) => `${formatAxisCount(value)} ms`,
};

/** A dashed line from (x1, y1) to (x2, y2) with its words at (textX, textY), in the current colour. */
function annotate(ctx: CanvasRenderingContext2D, [x1, y1, x2, y2]: readonly number[], label: string, textX: number, textY: number) {
  ctx.beginPath();
  ctx.moveTo(x1!, y1!);
  ctx.lineTo(x2!, y2!);
  ctx.stroke();
  ctx.fillText(label, textX, textY);
}

/** Draws annotations over the plot area after each redraw, dashed `dash` px, in a saved canvas state. */
function overlayPlugin(dash: number, width: number, paint: (plot: uPlot, ctx: CanvasRenderingContext2D) => void): uPlot.Plugin {
  const hook = (plot: uPlot) => {
    const { ctx } = plot;
    ctx.save();
    ctx.setLineDash([dash * uPlot.pxRatio, 4 * uPlot.pxRatio]);
    ctx.lineWidth = width * uPlot.pxRatio;
    ctx.font = `${11 * uPlot.pxRatio}px system-ui, sans-serif`;
    paint(plot, ctx);
    ctx.restore();
  };
  return { hooks: { draw: [hook] } };
}

/** Each marker as a dashed vertical line with its word. */
function markerPlugin(markers: { current: readonly TimeMarker[] }): uPlot.Plugin {
  return overlayPlugin(4, 1, (plot, ctx) => {
    const { bbox } = plot;
    for (const marker of markers.current) {
      const x = Math.round(plot.valToPos(marker.t, "x", true));
      if (x < bbox.left || x > bbox.left + bbox.width) continue;
      ctx.strokeStyle = ctx.fillStyle = MARKER_COLOURS[marker.kind];
      // A word that would run past the plot's right edge (a step near the end) goes on the line's left instead.
      const gap = 4 * uPlot.pxRatio;
      const fits = x + gap + ctx.measureText(marker.label).width <= bbox.left + bbox.width;
      ctx.textAlign = fits ? "left" : "right";
      annotate(ctx, [x, bbox.top, x, bbox.top + bbox.height], marker.label, fits ? x + gap : x - gap, bbox.top + 12 * uPlot.pxRatio);
    }
  });
}

const THRESHOLD_COLOUR = "#bf3989";
const NO_THRESHOLDS: readonly Threshold[] = [];

/** Each SLO threshold as a dashed horizontal line with its words, right-aligned above it. */
function thresholdPlugin(thresholds: { current: readonly Threshold[] }): uPlot.Plugin {
  return overlayPlugin(8, 1.5, (plot, ctx) => {
    const { bbox } = plot;
    ctx.textAlign = "right";
    ctx.strokeStyle = ctx.fillStyle = THRESHOLD_COLOUR;
    let above = 0;
    for (const threshold of thresholds.current) {
      const y = Math.round(plot.valToPos(threshold.value, "y", true));
      if (y > bbox.top + bbox.height) continue;
      if (y < bbox.top) {
        // Far above the measurements (plotYRange left it out): said at the top rather than flattening the lines.
        ctx.fillText(`↑ ${threshold.label}, above the chart`, bbox.left + bbox.width - 4 * uPlot.pxRatio, bbox.top + (12 + 14 * above++) * uPlot.pxRatio);
        continue;
      }
      annotate(ctx, [bbox.left, y, bbox.left + bbox.width, y], threshold.label, bbox.left + bbox.width - 4 * uPlot.pxRatio, y - 4 * uPlot.pxRatio);
    }
  });
}

/** A y axis as wide as its longest label ("500 kB/s"), measured in the axis's own font, so no label is clipped. */
function axisWidth(plot: uPlot, values: string[] | null, axisIndex: number, cycle: number): number {
  const axis = plot.axes[axisIndex]!;
  if (cycle > 1) return (axis as { _size?: number })._size ?? 64;
  const longest = (values ?? []).reduce((found, value) => (value.length > found.length ? value : found), "");
  const font = Array.isArray(axis.font) ? axis.font[0] : axis.font;
  if (font) plot.ctx.font = String(font);
  const label = longest ? plot.ctx.measureText(longest).width / uPlot.pxRatio : 0;
  return Math.ceil((axis.ticks?.size ?? 10) + (axis.gap ?? 5) + label + 8);
}

/** With no cursor on the plot, the legend reads the latest second instead of "--" (the compare charts too). */
export function showLatest(plot: uPlot) {
  const last = plot.data[0].length - 1;
  if (plot.cursor.idx == null && last >= 0) plot.setLegend({ idx: last });
}

function options<P extends TimedPoint>(
  lines: readonly ChartLine<P>[],
  width: number,
  height: number,
  unit: ChartUnit,
  markers: { current: readonly TimeMarker[] },
  thresholds: { current: readonly Threshold[] },
): uPlot.Options {
  const format = AXIS_FORMAT[unit];
  return {
    width,
    height,
    // Room on the right for the last time label, which uPlot centres on its tick at the plot's edge.
    padding: [8, 36, 0, 0],
    scales: {
      x: { time: true },
      // Tall enough for the thresholds near the measurements; one far above them is written at the top instead.
      y: { range: (_u, min, max) => plotYRange(min, max, thresholds.current.map((threshold) => threshold.value)) },
    },
    // Points are whole seconds, so ticks are too; each reads as a time of day in the user's locale (format.ts).
    axes: [
      { incrs: SECOND_INCREMENTS, space: 90, values: (_u, splits) => splits.map(formatTimeOfDay) },
      { size: axisWidth, values: (_u, splits) => splits.map(format) },
    ],
    series: [
      { label: "Time", value: (_u: uPlot, value: number | null) => formatTimeOfDay(value) },
      // uPlot shows point markers only while points are sparse, so the first seconds are visible.
      ...lines.map((line) => ({
        label: line.label,
        stroke: line.color,
        width: 2,
        value: (_u: uPlot, value: number | null) => (value === null ? "—" : format(value)),
        ...(line.dash ? { dash: line.dash } : {}),
      })),
    ],
    // One cursor across the run's charts: hover a second on one, read it on all.
    cursor: { drag: { x: false, y: false }, sync: { key: "run" } },
    legend: { live: true },
    hooks: { setCursor: [showLatest], setData: [showLatest] },
    plugins: [markerPlugin(markers), thresholdPlugin(thresholds)],
  };
}

/** Feeds the plot and widens x to the planned window, so a live run's lines grow left to right. */
function draw(plot: uPlot, data: uPlot.AlignedData, span: SeriesChartProps<TimedPoint>["span"]) {
  const range = plotXRange(data[0], span);
  plot.batch(() => {
    plot.setData(data);
    if (range) plot.setScale("x", { min: range[0], max: range[1] });
  });
}

function latestValues<P extends TimedPoint>(lines: readonly ChartLine<P>[], points: readonly P[], unit: ChartUnit): string {
  const last = points[points.length - 1];
  if (!last) return "no data yet";
  return `latest second: ${lines.map((line) => `${line.label} ${line.value(last) === null ? "none" : AXIS_FORMAT[unit](line.value(last)!)}`).join(", ")}`;
}

/**
 * One uPlot chart over the run's seconds. The plot is created once, fed with setData as points
 * arrive, resized with its container and destroyed on unmount. `data-points` on the container
 * says how many points the plot has actually drawn.
 */
export function SeriesChart<P extends TimedPoint = SeriesPoint>({ testId, title, lines, points, span, markers = [], unit = "count", height = 200, controls, thresholds = NO_THRESHOLDS }: SeriesChartProps<P>) {
  const canvasRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const markersRef = useRef<readonly TimeMarker[]>(markers);
  const thresholdsRef = useRef<readonly Threshold[]>(thresholds);
  const [drawn, setDrawn] = useState(0);
  const built = useRef<Parameters<typeof extendColumns<P>>[0]>(null);
  const data = useMemo(() => {
    const columns = extendColumns(built.current, points, lines);
    built.current = { points, lines, columns };
    return columns as uPlot.AlignedData;
  }, [points, lines]);
  const latest = useRef({ data, span });
  const titleId = `${testId}-title`;

  useEffect(() => {
    const element = canvasRef.current;
    if (!element) return;
    const plot = new uPlot(options(lines, element.clientWidth || 600, height, unit, markersRef, thresholdsRef), [[]], element);
    plotRef.current = plot;
    draw(plot, latest.current.data, latest.current.span);
    setDrawn(latest.current.data[0].length);
    const observer = new ResizeObserver(() => {
      if (element.clientWidth > 0 && element.clientWidth !== plot.width) plot.setSize({ width: element.clientWidth, height });
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
      plotRef.current = null;
    };
  }, [lines, height, unit]);

  const [spanFrom, spanTo] = span ?? [null, null];
  useEffect(() => {
    latest.current = { data, span: spanFrom === null || spanTo === null ? null : [spanFrom, spanTo] };
    const plot = plotRef.current;
    if (!plot) return;
    draw(plot, latest.current.data, latest.current.span);
    setDrawn(data[0].length);
  }, [data, spanFrom, spanTo]);

  useEffect(() => {
    markersRef.current = markers;
    plotRef.current?.redraw(false);
  }, [markers]);

  useEffect(() => {
    if (thresholdsRef.current === thresholds) return;
    thresholdsRef.current = thresholds;
    // Set the data again so the y range is worked out with the new thresholds in it.
    const plot = plotRef.current;
    if (plot) draw(plot, latest.current.data, latest.current.span);
  }, [thresholds]);

  return (
    <section className="chart" aria-labelledby={titleId} data-testid={testId} data-points={drawn} data-markers={markers.length} data-thresholds={thresholds.length}>
      <h3 id={titleId}>{title}</h3>
      {controls}
      {thresholds.length > 0 && (
        <p className="chart-thresholds" data-testid={`${testId}-thresholds`}>
          {thresholds.map((threshold) => threshold.label).join(" · ")}
        </p>
      )}
      {drawn === 0 && <p className="chart-empty">Waiting for the first second of measurements…</p>}
      <div className="chart-canvas" ref={canvasRef} role="img" aria-label={`${title} chart, ${latestValues(lines, points, unit)}`} />
    </section>
  );
}
