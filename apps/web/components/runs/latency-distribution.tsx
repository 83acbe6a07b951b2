"use client";

import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import type { LatencyDistribution as Distribution } from "@throng/protocol/latency-distribution";
import { bucketLowerMs } from "@throng/protocol/latency-distribution";
import { useApiQuery } from "../../hooks/use-api-query";
import { api } from "../../lib/shared/api";
import {
  drawHeatmap,
  drawHistogram,
  formatOffset,
  heatmapCellAt,
  heatmapPlotBox,
} from "../../lib/runs/distribution-draw";
import { type CursorAt, joinRunCursor, type RunCursor } from "../../lib/runs/heatmap-cursor";
import { formatInteger, formatTimeOfDay } from "../../lib/shared/format";
import {
  distributionMetricName,
  formatLatencyTick,
  heatColour,
  legendCounts,
} from "../../lib/runs/latency-distribution";
import { queryKeys } from "../../lib/shared/query-keys";
import { reportApi } from "../../lib/shared/report-api";
import { readViewRange } from "../../lib/charts/view-range";
import { useChartZoom } from "../charts/chart-zoom";
import { ErrorAlert } from "../ui/error-alert";

interface LatencyDistributionProps {
  runId: string;
  /** The latency metrics the run measured (distributionMetrics), round trips first. */
  metrics: readonly string[];
  /** A live run reads its distribution when asked (each read merges every stored second), an ended one at once. */
  live: boolean;
  /** On a share page: the link's token, the only permission, through which the distribution is read. */
  shareToken?: string;
}

/**
 * A latency metric's distribution (bars per log bucket, p50/p90/p99/max lines) and heatmap over time, for the run
 * or the range in the URL (?from=&to=, the zoom's), merged on the server from the per-second HDR histograms.
 */
export function LatencyDistribution({ runId, metrics, live, shareToken }: LatencyDistributionProps) {
  const range = readViewRange(useSearchParams());
  const [metric, setMetric] = useState(metrics[0] ?? "rtt");
  const [read, setRead] = useState(live ? 0 : 1);
  const chosen = metrics.includes(metric) ? metric : (metrics[0] ?? "rtt");
  const answer = useApiQuery(
    shareToken
      ? queryKeys.sharedDistribution(shareToken, chosen, range)
      : queryKeys.distribution(runId, chosen, range, read),
    (signal) =>
      read === 0
        ? Promise.resolve(null)
        : shareToken
          ? reportApi.publicDistribution(shareToken, chosen, range, signal)
          : api.getDistribution(runId, chosen, range, signal),
  );
  if (metrics.length === 0) return null;
  const distribution = answer.data;
  return (
    <section className="panel distribution" aria-labelledby="distribution-title" data-testid="latency-distribution">
      <div className="page-head">
        <h2 id="distribution-title">Latency distribution</h2>
        <div className="head-actions">
          <label className="chart-switch">
            Metric{" "}
            <select
              value={chosen}
              onChange={(event) => setMetric(event.target.value)}
              data-testid="distribution-metric"
            >
              {metrics.map((name) => (
                <option key={name} value={name}>
                  {distributionMetricName(name)}
                </option>
              ))}
            </select>
          </label>
          {live && (
            <button
              type="button"
              className="button"
              onClick={() => setRead((n) => n + 1)}
              data-testid="distribution-read"
            >
              {read === 0 ? "Read the distribution so far" : "Read again"}
            </button>
          )}
        </div>
      </div>
      <p className="muted small" data-testid="distribution-range">
        {range ? `Seconds ${formatOffset(range.from)} to ${formatOffset(range.to)} of the run` : "The whole run"}, every
        agent&apos;s per-second HDR histograms merged (never averaged); buckets ten to a decade.
      </p>
      <ErrorAlert error={answer.error} />
      {read > 0 && !distribution && !answer.error && <p className="loading">Reading the distribution…</p>}
      {distribution && distribution.stats.count === 0 && (
        <p className="muted" data-testid="distribution-empty">
          No {distributionMetricName(chosen).toLowerCase()} sample was recorded{" "}
          {range ? "in these seconds" : "in this run"}.
        </p>
      )}
      {distribution && distribution.stats.count > 0 && <DistributionCharts distribution={distribution} />}
    </section>
  );
}

function DistributionCharts({ distribution }: { distribution: Distribution }) {
  const { stats, heatmap } = distribution;
  return (
    <>
      <p className="distribution-stats" data-testid="distribution-stats">
        {formatInteger(stats.count)} samples · p50 {formatLatencyTick(stats.p50Ms!)} · p90{" "}
        {formatLatencyTick(stats.p90Ms!)} · p99 {formatLatencyTick(stats.p99Ms!)} · max{" "}
        {formatLatencyTick(stats.maxMs!)}
      </p>
      <h3 className="distribution-heading">Samples per latency bucket</h3>
      <PaintedCanvas
        distribution={distribution}
        draw={drawHistogram}
        testId="distribution-histogram"
        label={`Histogram of ${formatInteger(stats.count)} samples with p50, p90, p99 and max`}
      />
      <h3 className="distribution-heading">
        Over time (
        {heatmap.secondsPerColumn === 1 ? "one column a second" : `one column per ${heatmap.secondsPerColumn} s`})
      </h3>
      <HeatmapCanvas distribution={distribution} />
      <HeatmapLegend maxCount={heatmap.maxCount} />
    </>
  );
}

/** A canvas drawn by `draw` after layout and again on resize; the draw's time is kept on it as data-paint-ms. */
function PaintedCanvas({
  distribution,
  draw,
  testId,
  label,
  onPointer,
  onLeave,
}: {
  distribution: Distribution;
  draw: (canvas: HTMLCanvasElement, d: Distribution) => number;
  testId: string;
  label: string;
  onPointer?: (x: number, y: number, canvas: HTMLCanvasElement) => void;
  onLeave?: () => void;
}) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const canvas = ref.current;
    if (!canvas) return;
    const paint = () => {
      canvas.dataset.paintMs = draw(canvas, distribution).toFixed(1);
      canvas.dataset.painted = String(distribution.stats.count);
    };
    paint();
    const observer = new ResizeObserver(() => paint());
    observer.observe(canvas);
    return () => observer.disconnect();
  }, [distribution, draw]);
  return (
    <canvas
      ref={ref}
      className="distribution-canvas"
      data-testid={testId}
      role="img"
      aria-label={label}
      onMouseMove={
        onPointer && ((event) => onPointer(event.nativeEvent.offsetX, event.nativeEvent.offsetY, event.currentTarget))
      }
      onMouseLeave={onLeave}
    />
  );
}

/**
 * The heatmap on the page's one cursor: a line chart's cursor draws its line here at the same second, and pointing
 * here moves theirs (heatmap-cursor.ts). Times read as the line charts' do, clock times, where the run's start is known.
 */
function HeatmapCanvas({ distribution }: { distribution: Distribution }) {
  const start = useChartZoom()?.start ?? null;
  const [cell, setCell] = useState<ReturnType<typeof heatmapCellAt>>(null);
  const [cursorAt, setCursorAt] = useState<CursorAt | null>(null);
  const cursor = useRef<RunCursor | null>(null);
  useEffect(() => {
    if (start === null) return;
    cursor.current = joinRunCursor(setCursorAt);
    return () => {
      cursor.current?.stop();
      cursor.current = null;
    };
  }, [start]);
  const draw = useCallback((canvas: HTMLCanvasElement, d: Distribution) => drawHeatmap(canvas, d, start), [start]);
  const span = distribution.heatmap.secondsPerColumn;
  const when = (second: number) => (start === null ? formatOffset(second) : formatTimeOfDay(start + second));
  const onPointer = (x: number, y: number, canvas: HTMLCanvasElement) => {
    setCell(heatmapCellAt(distribution, canvas.clientWidth, canvas.clientHeight, x, y));
    if (start === null) return;
    const plot = heatmapPlotBox(canvas.clientWidth, canvas.clientHeight);
    const share = (x - plot.left) / plot.width;
    const { from, to } = distribution;
    cursor.current?.move(
      share < 0 || share > 1 ? null : start + from + share * (to - from),
      Math.min(1, Math.max(0, (y - plot.top) / plot.height)),
    );
  };
  return (
    <>
      <div className="heatmap-plot">
        <PaintedCanvas
          distribution={distribution}
          draw={draw}
          testId="latency-heatmap"
          label="Heatmap of latency over time: time across, latency buckets up, darker for more samples"
          onPointer={onPointer}
          onLeave={() => {
            setCell(null);
            cursor.current?.move(null);
          }}
        />
        {start !== null && cursorAt !== null && (
          <HeatmapCursorLine distribution={distribution} at={cursorAt} start={start} />
        )}
      </div>
      <p className="muted small" data-testid="heatmap-readout" aria-live="polite">
        {cell
          ? `${when(cell.second)}${span > 1 ? `–${when(cell.second + span)}` : ""} · ${formatLatencyTick(bucketLowerMs(cell.bucket))} to ${formatLatencyTick(bucketLowerMs(cell.bucket + 1))}: ${formatInteger(cell.count)} samples`
          : "Point at a cell for its time, latency and count."}
      </p>
    </>
  );
}

/** The page's cursor over the heatmap: a line where it stands, beside it the time of day the legends read. */
function HeatmapCursorLine({ distribution, at, start }: { distribution: Distribution; at: CursorAt; start: number }) {
  const ref = useRef<HTMLDivElement>(null);
  const [box, setBox] = useState<{ width: number; height: number } | null>(null);
  // The heatmap's size, followed while the line shows (a window resized under a cursor that stays).
  useEffect(() => {
    const canvas = ref.current?.parentElement?.querySelector("canvas");
    if (!canvas) return;
    const measure = () => setBox({ width: canvas.clientWidth, height: canvas.clientHeight });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(canvas);
    return () => observer.disconnect();
  }, []);
  const { from, to } = distribution;
  const share = (at.second - start - from) / (to - from);
  if (share < 0 || share > 1) return <div ref={ref} hidden />;
  const plot = box && heatmapPlotBox(box.width, box.height);
  // The second the line charts' legends read: their nearest point, which the cursor's own rounding can miss.
  const nearest = at.legendSecond;
  return (
    <div
      ref={ref}
      className="heatmap-cursor"
      data-testid="heatmap-cursor"
      data-second={nearest}
      style={
        plot ? { left: plot.left + share * plot.width, top: plot.top, height: plot.height } : { visibility: "hidden" }
      }
    >
      <span className="heatmap-cursor-time" data-testid="heatmap-cursor-time">
        {formatTimeOfDay(nearest)}
      </span>
    </div>
  );
}

function HeatmapLegend({ maxCount }: { maxCount: number }) {
  return (
    <ul className="heatmap-legend" aria-label="Samples per cell" data-testid="heatmap-legend">
      <li className="muted small">Samples per cell:</li>
      {legendCounts(maxCount).map((count) => (
        <li key={count}>
          <span className="heatmap-swatch" style={{ background: heatColour(count, maxCount) ?? undefined }} />
          {formatInteger(count)}
        </li>
      ))}
    </ul>
  );
}
