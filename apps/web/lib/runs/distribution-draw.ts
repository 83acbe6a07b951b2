// Drawing a latency distribution on a plain canvas: the histogram (log buckets along x, with p50/p90/p99/max lines)
// and the heatmap (seconds along x, log buckets up y, a colour per count). Plain canvas rather than uPlot: both are
// grids of rectangles, and a one-hour heatmap is up to 900 × 60 cells that must paint well under bench:web's limit.
import { bucketLowerMs, type LatencyDistribution } from "@throng/protocol/latency-distribution";
import { formatAxisCount } from "../charts/series";
import { formatTimeOfDay } from "../shared/format";
import { formatLatencyTick, heatColour } from "./latency-distribution";

const AXIS = "#57606a";
const GRID = "rgba(87, 96, 106, 0.15)";
const BAR = "#0969da";
const MARKERS = [
  { key: "p50Ms", label: "p50", colour: "#1a7f37" },
  { key: "p90Ms", label: "p90", colour: "#9a6700" },
  { key: "p99Ms", label: "p99", colour: "#cf222e" },
  { key: "maxMs", label: "max", colour: "#8250df" },
] as const;
const PAD = { left: 56, right: 12, top: 22, bottom: 26 };
/** Colours of the heatmap's log scale: cells are grouped by colour so the canvas changes fill this often at most. */
const SHADES = 48;

interface Plot {
  ctx: CanvasRenderingContext2D;
  width: number;
  height: number;
}

function prepare(canvas: HTMLCanvasElement, cssHeight: number): Plot | null {
  const ctx = canvas.getContext("2d");
  if (!ctx) return null;
  const ratio = window.devicePixelRatio || 1;
  const width = Math.max(200, canvas.clientWidth);
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(cssHeight * ratio);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, cssHeight);
  ctx.font = "11px system-ui, sans-serif";
  return { ctx, width, height: cssHeight };
}

/** Buckets whose lower edge is 1, 2 or 5 × a power of ten (10^0, 10^0.3, 10^0.7): the latency axis's ticks. */
function latencyTicks(first: number, count: number): number[] {
  const ticks: number[] = [];
  for (let k = first; k <= first + count; k++) if ([0, 3, 7].includes(((k % 10) + 10) % 10)) ticks.push(k);
  return ticks.length > 8 ? ticks.filter((k) => k % 10 === 0) : ticks;
}

/** The histogram: each bucket a bar, the percentiles as labelled vertical lines. Returns the ms it took. */
export function drawHistogram(canvas: HTMLCanvasElement, distribution: LatencyDistribution, cssHeight = 220): number {
  const started = performance.now();
  const plot = prepare(canvas, cssHeight);
  if (!plot || distribution.counts.length === 0) return performance.now() - started;
  const { ctx, width, height } = plot;
  const { firstBucket, counts } = distribution;
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const bottom = PAD.top + plotH;
  const top = Math.max(...counts);
  const xOfBucket = (k: number) => PAD.left + ((k - firstBucket) / counts.length) * plotW;
  ctx.fillStyle = AXIS;
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  // The middle line only where it is a whole count of its own (a top of 1 would read 1, 1, 0).
  for (const share of top >= 4 ? [0, 0.5, 1] : [0, 1]) {
    const y = bottom - share * plotH;
    ctx.fillText(formatAxisCount(Math.round(top * share)), PAD.left - 6, y);
    ctx.fillStyle = GRID;
    ctx.fillRect(PAD.left, Math.round(y), plotW, 1);
    ctx.fillStyle = AXIS;
  }
  ctx.fillStyle = BAR;
  const barW = plotW / counts.length;
  counts.forEach((count, i) => {
    if (count === 0) return;
    const h = Math.max(1, (count / top) * plotH);
    ctx.fillRect(PAD.left + i * barW + 0.5, bottom - h, Math.max(1, barW - 1), h);
  });
  ctx.fillStyle = AXIS;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const k of latencyTicks(firstBucket, counts.length))
    ctx.fillText(formatLatencyTick(bucketLowerMs(k)), xOfBucket(k), bottom + 6);
  // Markers at one place (p99 and max often are) share one label; labels that would overlap go down a row.
  const rowsRight = [-Infinity, -Infinity, -Infinity];
  for (const group of markerGroups(distribution.stats, (ms) =>
    Math.min(PAD.left + plotW, xOfBucket(Math.log10(Math.max(1, ms * 1000)) * 10)),
  )) {
    ctx.strokeStyle = group.colour;
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.moveTo(Math.round(group.x) + 0.5, PAD.top);
    ctx.lineTo(Math.round(group.x) + 0.5, bottom);
    ctx.stroke();
    const textW = ctx.measureText(group.words).width;
    const left = Math.min(Math.max(0, group.x - textW / 2), width - textW);
    const row = Math.max(
      0,
      rowsRight.findIndex((right) => left > right + 4),
    );
    rowsRight[row] = left + textW;
    ctx.fillStyle = group.colour;
    ctx.textAlign = "left";
    ctx.textBaseline = "top";
    ctx.fillText(group.words, left, 1 + row * 7);
  }
  ctx.setLineDash([]);
  return performance.now() - started;
}

/**
 * The percentile markers to draw, those within 2 px of each other as one ("p99, max 23 ms"), in the colour of the
 * highest: a bucket holds p90, p99 and max together when few samples were taken.
 */
export function markerGroups(
  stats: LatencyDistribution["stats"],
  xOf: (ms: number) => number,
): { x: number; words: string; colour: string }[] {
  const groups: { x: number; labels: string[]; ms: number; colour: string }[] = [];
  for (const marker of MARKERS) {
    const ms = stats[marker.key];
    if (ms === null) continue;
    const x = xOf(ms);
    const last = groups[groups.length - 1];
    if (last && Math.abs(last.x - x) < 2) {
      last.labels.push(marker.label);
      last.ms = ms;
      last.colour = marker.colour;
    } else groups.push({ x, labels: [marker.label], ms, colour: marker.colour });
  }
  return groups.map((group) => ({
    x: group.x,
    colour: group.colour,
    words: `${group.labels.join(", ")} ${formatLatencyTick(group.ms)}`,
  }));
}

/** "0:00", "12:30", "1:00:00": seconds since the run's start. */
export function formatOffset(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const two = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];

/** Where a point of the heatmap is: its column's first second and its bucket, or null outside the plot. */
export function heatmapCellAt(
  distribution: LatencyDistribution,
  width: number,
  height: number,
  x: number,
  y: number,
): { second: number; bucket: number; count: number } | null {
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const { from, to, firstBucket, counts, heatmap } = distribution;
  if (x < PAD.left || x > PAD.left + plotW || y < PAD.top || y > PAD.top + plotH || counts.length === 0) return null;
  const second =
    from + Math.floor((((x - PAD.left) / plotW) * (to - from)) / heatmap.secondsPerColumn) * heatmap.secondsPerColumn;
  const bucket = firstBucket + Math.min(counts.length - 1, Math.floor(((PAD.top + plotH - y) / plotH) * counts.length));
  const column = heatmap.columnStart.indexOf(second);
  return { second, bucket, count: column === -1 ? 0 : (heatmap.counts[column]![bucket - firstBucket] ?? 0) };
}

/** The heatmap's shades as RGB: the colour of a count at each step of the log scale up to `maxCount` (heatColour). */
function shadesRgb(maxCount: number): [number, number, number][] {
  return Array.from({ length: SHADES }, (_, shade) => {
    const hsl = heatColour(Math.max(1, Math.round(maxCount ** ((shade + 0.5) / SHADES))), maxCount) ?? "hsl(0 0% 100%)";
    const [h, sat, l] = hsl.match(/[\d.]+/g)!.map(Number) as [number, number, number];
    return hslToRgb(h, sat / 100, l / 100);
  });
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return [f(0), f(8), f(4)];
}

/**
 * The heatmap's x ticks (`at` in seconds since the run's start): times of day on the clock's round seconds, spaced as
 * the line charts' are (series-chart.tsx: the same increments, 90 px apart), when the run's first second (`start`,
 * epoch seconds) is known; else seconds since the start.
 */
export function heatmapTimeTicks(
  from: number,
  to: number,
  plotWidth: number,
  start: number | null,
): { at: number; text: string }[] {
  const step = TIME_STEPS.find((s) => ((to - from) / s) * (start === null ? 60 : 90) <= plotWidth) ?? 7200;
  const origin = start ?? 0;
  const ticks: { at: number; text: string }[] = [];
  for (let t = Math.ceil((origin + from) / step) * step; t <= origin + to; t += step)
    ticks.push({ at: t - origin, text: start === null ? formatOffset(t) : formatTimeOfDay(t) });
  return ticks;
}

/** Where the heatmap's plot is on a canvas of this size, in CSS px (the cursor's line is drawn over it). */
export function heatmapPlotBox(
  width: number,
  height: number,
): { left: number; top: number; width: number; height: number } {
  return { left: PAD.left, top: PAD.top, width: width - PAD.left - PAD.right, height: height - PAD.top - PAD.bottom };
}

/** The heatmap: one rectangle per column and bucket with samples, darker for more. Returns the ms it took. */
export function drawHeatmap(
  canvas: HTMLCanvasElement,
  distribution: LatencyDistribution,
  start: number | null = null,
  cssHeight = 240,
): number {
  const started = performance.now();
  const plot = prepare(canvas, cssHeight);
  if (!plot || distribution.counts.length === 0) return performance.now() - started;
  const { ctx, width, height } = plot;
  const { from, to, firstBucket, counts, heatmap } = distribution;
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const bottom = PAD.top + plotH;
  const rowH = plotH / counts.length;
  // One pixel per cell in a bitmap the size of the grid, then drawn stretched over the plot in one call: a one-hour
  // heatmap is ~36,000 cells, and a fillRect each (even grouped by colour) was the page's slowest paint.
  const columns = Math.ceil((to - from) / heatmap.secondsPerColumn);
  const palette = shadesRgb(heatmap.maxCount);
  const pixels = new Uint8ClampedArray(columns * counts.length * 4);
  heatmap.columnStart.forEach((second, i) => {
    const column = Math.floor((second - from) / heatmap.secondsPerColumn);
    heatmap.counts[i]!.forEach((count, row) => {
      if (count === 0) return;
      const share = heatmap.maxCount <= 1 ? 1 : Math.log(count) / Math.log(heatmap.maxCount);
      const [r, g, b] = palette[Math.min(SHADES - 1, Math.floor(share * SHADES))]!;
      const at = ((counts.length - 1 - row) * columns + column) * 4;
      pixels[at] = r;
      pixels[at + 1] = g;
      pixels[at + 2] = b;
      pixels[at + 3] = 255;
    });
  });
  const grid = document.createElement("canvas");
  grid.width = columns;
  grid.height = counts.length;
  grid.getContext("2d")!.putImageData(new ImageData(pixels, columns, counts.length), 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(grid, PAD.left, PAD.top, plotW, plotH);
  ctx.fillStyle = AXIS;
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (const k of latencyTicks(firstBucket, counts.length))
    ctx.fillText(formatLatencyTick(bucketLowerMs(k)), PAD.left - 6, bottom - (k - firstBucket) * rowH);
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  const ticks = heatmapTimeTicks(from, to, plotW, start);
  for (const tick of ticks) ctx.fillText(tick.text, PAD.left + ((tick.at - from) / (to - from)) * plotW, bottom + 6);
  // The tick words, for the journeys to read (the canvas has no text of its own).
  canvas.dataset.xTicks = ticks.map((tick) => tick.text).join("|");
  ctx.strokeStyle = GRID;
  ctx.strokeRect(PAD.left + 0.5, PAD.top + 0.5, plotW, plotH);
  return performance.now() - started;
}
