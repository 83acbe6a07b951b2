"use client";

import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { formatTimeOfDay } from "../../lib/shared/format";
import { plotXRange, plotYRange, zoomedXRange } from "../../lib/charts/chart-range";
import { zoomOptions, type PlotZoom } from "../../lib/charts/chart-zoom-plot";
import { exactValue, pixelColumns, type Columns } from "../../lib/charts/pixel-columns";
import {
  extendColumns,
  formatAxisBytes,
  formatAxisCount,
  type ChartLine,
  type TimedPoint,
  type TimeMarker,
} from "../../lib/charts/series";
import type { Threshold } from "../../lib/charts/slo-live";
import { columnPlaces, overlapCount, placeLabels, type Box, type LabelRequest } from "../../lib/charts/chart-labels";
import { MARKER_COLOURS, nearestMarker } from "../../lib/charts/run-annotations";
import { ChartAnnotations } from "./chart-annotations";
import { useChartZoom } from "./chart-zoom";
import { pagePlotTurns } from "../../lib/charts/plot-turns";

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
const AXIS_FORMAT: Record<ChartUnit, (value: number) => string> = {
  count: formatAxisCount,
  bytes: (value) => `${formatAxisBytes(value)}/s`,
  ms: (value) => `${formatAxisCount(value)} ms`,
};

const THRESHOLD_COLOUR = "#bf3989";
const NO_THRESHOLDS: readonly Threshold[] = [];

/** A line to draw, dashed, in its colour, with its words at a place `placeLabels` picks. */
interface Annotation {
  colour: string;
  dash: number;
  width: number;
  from: readonly [number, number];
  to: readonly [number, number] | null;
  text: string;
  label: LabelRequest;
}

/**
 * The plot's SLO thresholds (dashed horizontal lines, their words right-aligned above the line, or below it when above
 * is taken; one far above the data said at the top) and its markers (dashed vertical lines, their words at the top,
 * or further down the line when the top is taken). The words are placed together so none is written over another or
 * across an SLO's line ("above the chaborted"); how many overlap is left on the plot as `data-label-overlaps`.
 */
function annotations(
  plot: uPlot,
  ctx: CanvasRenderingContext2D,
  markers: readonly TimeMarker[],
  thresholds: readonly Threshold[],
  active: number | null,
): { lines: Annotation[]; obstacles: Box[] } {
  const { bbox } = plot;
  const px = uPlot.pxRatio;
  const [right, bottom, row, text, gap] = [bbox.left + bbox.width, bbox.top + bbox.height, 14 * px, 12 * px, 4 * px];
  const lines: Annotation[] = [];
  const obstacles: Box[] = [];
  for (const threshold of thresholds) {
    const y = Math.round(plot.valToPos(threshold.value, "y", true));
    if (y > bottom) continue;
    if (y < bbox.top) {
      // Far above the measurements (plotYRange left it out): said at the top rather than flattening the lines.
      const words = `↑ ${threshold.label}, above the chart`;
      const width = ctx.measureText(words).width;
      lines.push({
        colour: threshold.colour ?? THRESHOLD_COLOUR,
        dash: 8,
        width: 1.5,
        from: [0, 0],
        to: null,
        text: words,
        label: {
          width,
          height: text,
          places: columnPlaces(right - gap - width, bbox.top + 2 * px, bottom - text, row),
        },
      });
      continue;
    }
    const width = ctx.measureText(threshold.label).width;
    const left = right - gap - width;
    obstacles.push({ left: bbox.left, top: y - px, width: bbox.width, height: 2 * px });
    const places = [
      { left, top: y - gap - text },
      { left, top: y + gap },
      { left, top: y - gap - text - row },
      { left, top: y + gap + row },
    ].filter((place) => place.top >= bbox.top - text && place.top <= bottom);
    lines.push({
      colour: threshold.colour ?? THRESHOLD_COLOUR,
      dash: 8,
      width: 1.5,
      from: [bbox.left, y],
      to: [right, y],
      text: threshold.label,
      label: { width, height: text, places: places.length ? places : [{ left, top: y - gap - text }] },
    });
  }
  const lastSecond = plot.scales.x?.max ?? Number.NaN;
  for (const [index, marker] of markers.entries()) {
    // An abort late in the run's last second is past the plot's last half second: drawn at its edge, not dropped.
    const t = marker.t > lastSecond && marker.t <= lastSecond + 1 ? lastSecond : marker.t;
    const x = Math.round(plot.valToPos(t, "x", true));
    if (x < bbox.left || x > right) continue;
    const width = ctx.measureText(marker.label).width;
    // A word that would run past the plot's right edge (a step near the end) goes on the line's left instead.
    const left = x + gap + width <= right ? x + gap : x - gap - width;
    lines.push({
      colour: MARKER_COLOURS[marker.kind],
      dash: 4,
      width: index === active ? 3 : 1,
      from: [x, bbox.top],
      to: [x, bottom],
      text: marker.label,
      label: { width, height: text, places: columnPlaces(left, bbox.top + 2 * px, bottom - text, row) },
    });
  }
  return { lines, obstacles };
}

/** Which marker is pointed at or focused (drawn bolder), and who to tell when the cursor comes near another. */
interface MarkerHover {
  active: { current: number | null };
  onHover: (index: number | null) => void;
}

/** The marker whose line the cursor is near, told to `hover` when it changes (a synced cursor counts too). */
function hoverMarker(plot: uPlot, markers: readonly TimeMarker[], hover: MarkerHover) {
  const positions = markers.map((marker) => plot.valToPos(marker.t, "x"));
  const index = nearestMarker(plot.cursor.left, positions);
  if (index !== hover.active.current) hover.onHover(index);
}

/** Draws the thresholds and markers over the plot after each redraw, in a saved canvas state (the plan trend's SLO too). */
export function annotationPlugin(
  markers: { current: readonly TimeMarker[] },
  thresholds: { current: readonly Threshold[] },
  hover?: MarkerHover,
): uPlot.Plugin {
  const draw = (plot: uPlot) => {
    const { ctx } = plot;
    const px = uPlot.pxRatio;
    ctx.save();
    ctx.font = `${11 * px}px system-ui, sans-serif`;
    ctx.textBaseline = "top";
    ctx.textAlign = "left";
    const { lines, obstacles } = annotations(
      plot,
      ctx,
      markers.current,
      thresholds.current,
      hover?.active.current ?? null,
    );
    // Thresholds first: their words belong next to their own line; a marker's may move down its.
    const placed = placeLabels(
      lines.map((line) => line.label),
      obstacles,
    );
    lines.forEach((line, index) => {
      ctx.strokeStyle = ctx.fillStyle = line.colour;
      ctx.setLineDash([line.dash * px, 4 * px]);
      ctx.lineWidth = line.width * px;
      if (line.to) {
        ctx.beginPath();
        ctx.moveTo(...line.from);
        ctx.lineTo(...line.to);
        ctx.stroke();
      }
      const box = placed[index]!;
      ctx.fillText(line.text, box.left, box.top);
    });
    ctx.restore();
    plot.root.dataset.labelOverlaps = String(overlapCount(placed));
    plot.root.dataset.labels = String(placed.length);
  };
  return {
    hooks: {
      draw: [draw],
      ...(hover ? { setCursor: [(plot: uPlot) => hoverMarker(plot, markers.current, hover)] } : {}),
    },
  };
}

/**
 * Labels' widths (px) by font and text: every chart of a page measures the same few labels on each redraw, and
 * setting a canvas's font to measure them was a visible share of a long run's first paint.
 */
const labelWidths = new Map<string, number>();

/** A y axis as wide as its longest label ("500 kB/s"), measured in the axis's own font, so no label is clipped. */
function axisWidth(plot: uPlot, values: string[] | null, axisIndex: number, cycle: number): number {
  const axis = plot.axes[axisIndex]!;
  if (cycle > 1) return (axis as { _size?: number })._size ?? 64;
  const longest = (values ?? []).reduce((found, value) => (value.length > found.length ? value : found), "");
  const font = String((Array.isArray(axis.font) ? axis.font[0] : axis.font) ?? "");
  const key = `${uPlot.pxRatio} ${font} ${longest}`;
  let label = labelWidths.get(key);
  if (label === undefined) {
    if (font) plot.ctx.font = font;
    label = longest ? plot.ctx.measureText(longest).width / uPlot.pxRatio : 0;
    if (labelWidths.size > 1_000) labelWidths.clear();
    labelWidths.set(key, label);
  }
  return Math.ceil((axis.ticks?.size ?? 10) + (axis.gap ?? 5) + label + 8);
}

/**
 * With no cursor on the plot, the legend reads the latest second instead of "--" (the compare charts too): the
 * latest the plot shows, when it is zoomed to earlier seconds.
 */
export function showLatest(plot: uPlot) {
  const xs = plot.data[0];
  const max = plot.scales.x?.max;
  let last = xs.length - 1;
  while (last > 0 && max != null && xs[last]! > max) last -= 1;
  if (plot.cursor.idx == null && last >= 0) plot.setLegend({ idx: last });
}

function options<P extends TimedPoint>(
  lines: readonly ChartLine<P>[],
  width: number,
  height: number,
  unit: ChartUnit,
  markers: { current: readonly TimeMarker[] },
  thresholds: { current: readonly Threshold[] },
  zoom: { current: PlotZoom | null },
  hover: MarkerHover,
): uPlot.Options {
  const format = AXIS_FORMAT[unit];
  const zooming = zoomOptions(zoom);
  return {
    width,
    height,
    // Room on the right for the last time label, which uPlot centres on its tick at the plot's edge.
    padding: [8, 36, 0, 0],
    scales: {
      x: { time: true },
      // Tall enough for the thresholds near the measurements; one far above them is written at the top instead.
      y: {
        range: (_u, min, max) =>
          plotYRange(
            min,
            max,
            thresholds.current.map((threshold) => threshold.value),
          ),
      },
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
        // Read in the full columns: the row under the cursor may be a pixel column's low or high (pixelColumns).
        value: (plot: uPlot, _drawn: number | null, line: number, row: number | null) => {
          const value = legendValue(plot, line, row);
          return value === null ? "—" : format(value);
        },
        ...(line.dash ? { dash: line.dash } : {}),
      })),
    ],
    // Dragging selects seconds for every chart of the page where it zooms (a run's page), and nothing elsewhere.
    cursor: zoom.current ? zooming.cursor : { drag: { x: false, y: false }, sync: { key: "run" } },
    legend: { live: true },
    hooks: {
      setCursor: [showLatest],
      setData: [showLatest],
      setScale: [showLatest],
      ...(zoom.current ? zooming.hooks : {}),
    },
    plugins: [annotationPlugin(markers, thresholds, hover)],
  };
}

/**
 * What each plot was last fed by draw, so the same columns, range and width are not drawn twice: the full columns,
 * the rows drawn from them (`pixelColumns`) and the plot's width in pixels when those are fewer (0 otherwise).
 */
const fed = new WeakMap<
  uPlot,
  { data: uPlot.AlignedData; rows: Columns; range: readonly [number, number] | null; pixels: number }
>();

/** The value of line `line` at row `row` of what the plot drew, from the full columns it was fed. */
function legendValue(plot: uPlot, line: number, row: number | null): number | null {
  const columns = fed.get(plot);
  if (!columns) return row === null ? null : ((plot.data[line]?.[row] as number | null | undefined) ?? null);
  return exactValue(columns.rows, columns.data, line, row);
}

/**
 * Feeds the plot and widens x to the planned window, so a live run's lines grow left to right; or narrows it to
 * the page's zoomed range. Unzoomed, a run longer than two seconds a pixel is drawn as each pixel column's low and
 * high (an hour is 3,600 seconds on ~1,000 px): the same picture, spikes included, for a third of uPlot's work on
 * the first paint; a zoomed range draws every second.
 */
function draw(
  plot: uPlot,
  data: uPlot.AlignedData,
  span: SeriesChartProps<TimedPoint>["span"],
  zoom: PlotZoom | null,
  force = false,
) {
  const range = zoom?.range && zoom.start !== null ? zoomedXRange(zoom.start, zoom.range) : plotXRange(data[0], span);
  // The plot is created and fed in one commit, and the data's effect runs in the same one: drawing the same
  // columns at the same x range again cost a second full redraw of every chart on a page's first paint.
  const width = Math.max(1, Math.round(plot.bbox.width / uPlot.pxRatio));
  const rows = zoom?.range && zoom.start !== null ? data : pixelColumns(data, range, width);
  const pixels = rows === data ? 0 : width;
  const last = fed.get(plot);
  const same = last && last.data === data && last.pixels === pixels;
  if (!force && same && last.range?.[0] === range?.[0] && last.range?.[1] === range?.[1]) return;
  fed.set(plot, { data, rows, range, pixels });
  plot.batch(() => {
    plot.setData(rows as uPlot.AlignedData);
    if (range) plot.setScale("x", { min: range[0], max: range[1] });
  });
  // What the plot shows, for the journeys to read: the page's zoom must reach every chart's scale.
  if (range) plot.root.dataset.xRange = `${range[0]}..${range[1]}`;
}

/**
 * `data-points` on the chart: how many seconds its plot holds. Written on the element, not kept in state: a render
 * of every chart after its plot drew was seven more React renders on a run page's first paint.
 */
function showPoints(chart: HTMLElement | null, data: uPlot.AlignedData) {
  chart?.setAttribute("data-points", String(data[0].length));
}

/** What a chart's plot is to draw: its seconds, lines and planned window. */
interface Drawn<P extends TimedPoint> {
  points: readonly P[];
  lines: readonly ChartLine<P>[];
  span: readonly [number, number] | null;
}

/** The columns of `drawn`, built (or extended by the newest second) only when they changed since the last call. */
function heldColumns<P extends TimedPoint>(
  built: { current: Parameters<typeof extendColumns<P>>[0] },
  drawn: Drawn<P>,
): uPlot.AlignedData {
  const { points, lines } = drawn;
  if (built.current?.points !== points || built.current.lines !== lines)
    built.current = { points, lines, columns: extendColumns(built.current, points, lines) };
  return built.current.columns as uPlot.AlignedData;
}

function latestValues<P extends TimedPoint>(
  lines: readonly ChartLine<P>[],
  points: readonly P[],
  unit: ChartUnit,
): string {
  const last = points[points.length - 1];
  if (!last) return "no data yet";
  return `latest second: ${lines.map((line) => `${line.label} ${line.value(last) === null ? "none" : AXIS_FORMAT[unit](line.value(last)!)}`).join(", ")}`;
}

/**
 * One uPlot chart over the run's seconds. The plot is created once, fed with setData as points
 * arrive, resized with its container and destroyed on unmount. `data-points` on the container
 * says how many seconds the plot holds (showPoints), once it has drawn them.
 */
export function SeriesChart<P extends TimedPoint = SeriesPoint>({
  testId,
  title,
  lines,
  points,
  span,
  markers = [],
  unit = "count",
  height = 200,
  controls,
  thresholds = NO_THRESHOLDS,
}: SeriesChartProps<P>) {
  const canvasRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const markersRef = useRef<readonly TimeMarker[]>(markers);
  const thresholdsRef = useRef<readonly Threshold[]>(thresholds);
  const chartRef = useRef<HTMLElement>(null);
  const built = useRef<Parameters<typeof extendColumns<P>>[0]>(null);
  /** Whether this chart has had a plot: one made again is made at once, not in plotTurns' line. */
  const shown = useRef(false);
  const [spanFrom, spanTo] = span ?? [null, null];
  // What the plot draws, read when it draws: a chart whose plot is not created yet (off screen, plotTurns) builds
  // no columns, so the first paint builds only the charts on screen.
  const latest = useRef<Drawn<P>>({ points, lines, span: null });
  latest.current = { points, lines, span: spanFrom === null || spanTo === null ? null : [spanFrom, spanTo] };
  const titleId = `${testId}-title`;
  const chartZoom = useChartZoom();
  const zoomable = chartZoom !== null && chartZoom.start !== null;
  const zoomRef = useRef<PlotZoom | null>(null);
  zoomRef.current = zoomable ? { start: chartZoom.start, range: chartZoom.range, select: chartZoom.select } : null;
  const [zoomFrom, zoomTo] = zoomable && chartZoom.range ? [chartZoom.range.from, chartZoom.range.to] : [null, null];
  // The marker pointed at on the plot or focused in the list: drawn bolder, its words under the chart.
  const [active, setActive] = useState<number | null>(null);
  const hover = useRef<MarkerHover>({ active: { current: null }, onHover: () => {} });
  hover.current.onHover = (index) => {
    hover.current.active.current = index;
    setActive(index);
    plotRef.current?.redraw(false);
  };
  const stableHover = useMemo<MarkerHover>(
    () => ({ active: hover.current.active, onHover: (index) => hover.current.onHover(index) }),
    [],
  );

  useEffect(() => {
    const element = canvasRef.current;
    if (!element) return;
    let plot: uPlot | null = null;
    const feed = (created: uPlot) => {
      const data = heldColumns(built, latest.current);
      draw(created, data, latest.current.span, zoomRef.current);
      showPoints(chartRef.current, data);
    };
    const create = (width: number) => {
      chartRef.current?.removeAttribute("data-plot-waiting");
      shown.current = true;
      plot = new uPlot(
        options(lines, Math.round(width) || 600, height, unit, markersRef, thresholdsRef, zoomRef, stableHover),
        [[]],
        element,
      );
      plotRef.current = plot;
      feed(plot);
    };
    // Resized with its container: a new width is a new pixel column count for a long run's drawn rows. A plot made
    // again (new lines, zoom on or off) is made in the observer's first call, in the frame that drops the old one.
    const resizes = new ResizeObserver(([entry]) => {
      const width = Math.round(entry?.contentRect.width ?? 0);
      if (!plot) return shown.current ? create(width) : undefined;
      if (width <= 0 || width === plot.width) return;
      plot.setSize({ width, height });
      feed(plot);
    });
    resizes.observe(element);
    // The first plot: on screen at once, off screen in its idle turn (plotTurns), at the width the intersection
    // observer measured in the browser's own layout (reading element.clientWidth here forced a layout per chart).
    const cancel = shown.current
      ? () => {}
      : pagePlotTurns().add(
          element,
          (width) => (plot ? undefined : create(width)),
          // Off screen on the first paint: said on the chart, so bench:web waits for the charts on screen only.
          () => chartRef.current?.setAttribute("data-plot-waiting", ""),
        );
    return () => {
      cancel();
      resizes.disconnect();
      plot?.destroy();
      plotRef.current = null;
    };
  }, [lines, height, unit, zoomable, stableHover]);

  useEffect(() => {
    const plot = plotRef.current;
    if (!plot) return;
    const data = heldColumns(built, latest.current);
    draw(plot, data, latest.current.span, zoomRef.current);
    showPoints(chartRef.current, data);
  }, [points, lines, spanFrom, spanTo, zoomFrom, zoomTo]);

  useEffect(() => {
    markersRef.current = markers;
    if (hover.current.active.current !== null && hover.current.active.current >= markers.length)
      hover.current.onHover(null);
    plotRef.current?.redraw(false);
  }, [markers]);

  useEffect(() => {
    if (thresholdsRef.current === thresholds) return;
    thresholdsRef.current = thresholds;
    // Set the data again so the y range is worked out with the new thresholds in it.
    const plot = plotRef.current;
    if (plot) draw(plot, heldColumns(built, latest.current), latest.current.span, zoomRef.current, true);
  }, [thresholds]);

  return (
    <section
      className="chart"
      aria-labelledby={titleId}
      data-testid={testId}
      ref={chartRef}
      data-markers={markers.length}
      data-thresholds={thresholds.length}
      data-zoom={zoomFrom === null ? undefined : `${zoomFrom}-${zoomTo}`}
    >
      <h3 id={titleId}>{title}</h3>
      {controls}
      {thresholds.length > 0 && (
        <p className="chart-thresholds" data-testid={`${testId}-thresholds`}>
          {thresholds.map((threshold) => threshold.label).join(" · ")}
        </p>
      )}
      {points.length === 0 && <p className="chart-empty">Waiting for the first second of measurements…</p>}
      <div
        className="chart-canvas"
        ref={canvasRef}
        role="img"
        aria-label={`${title} chart, ${latestValues(lines, points, unit)}`}
      />
      <ChartAnnotations
        testId={testId}
        title={title}
        markers={markers}
        start={chartZoom?.start ?? span?.[0] ?? null}
        active={active}
        onActive={stableHover.onHover}
      />
    </section>
  );
}
