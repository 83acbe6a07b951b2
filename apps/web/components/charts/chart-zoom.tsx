"use client";

import { createContext, useContext, useMemo, type ReactNode } from "react";
import type { RunRangeSummary } from "@throng/protocol/run-range";
import { useViewRange } from "../../hooks/use-view-range";
import { runStartSecond } from "../../lib/charts/chart-range";
import { formatDuration } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { reportApi } from "../../lib/shared/report-api";
import { runsApi } from "../../lib/runs/runs-api";
import type { ViewRange } from "../../lib/charts/view-range";

/** What every chart and the summary of one run's page share: the zoomed range and how to change it. */
export interface ChartZoom {
  /** The run's first second (epoch seconds); null before it started, when nothing can be zoomed. */
  start: number | null;
  range: ViewRange | null;
  select: (range: ViewRange | null) => void;
  /** The run's summary over a range, from the API (the signed-in route, or the share link's). */
  loadSummary: (range: ViewRange, signal: AbortSignal) => Promise<RunRangeSummary>;
  /** The cache key of that summary. */
  summaryKey: (range: ViewRange) => readonly unknown[];
}

const ChartZoomContext = createContext<ChartZoom | null>(null);

/** The page's zoom, or null outside a run's page (Compare zooms its own charts, compare/compare-charts.tsx). */
export function useChartZoom(): ChartZoom | null {
  return useContext(ChartZoomContext);
}

interface ChartZoomProviderProps {
  startedAt: string | null;
  loadSummary: ChartZoom["loadSummary"];
  summaryKey: ChartZoom["summaryKey"];
  children: ReactNode;
}

/** One zoom for the charts and summary inside it, kept in the page's URL. */
export function ChartZoomProvider({ startedAt, loadSummary, summaryKey, children }: ChartZoomProviderProps) {
  const [range, select] = useViewRange();
  const start = runStartSecond(startedAt);
  const zoom = useMemo(
    () => ({ start, range: start === null ? null : range, select, loadSummary, summaryKey }),
    [start, range, select, loadSummary, summaryKey],
  );
  return <ChartZoomContext.Provider value={zoom}>{children}</ChartZoomContext.Provider>;
}

/** A signed-in page's range summaries: the run's own route. */
export function runRangeSummary(runId: string): { load: ChartZoom["loadSummary"]; key: ChartZoom["summaryKey"] } {
  return {
    load: (range, signal) => runsApi.rangeSummary(runId, range, signal),
    key: (range) => queryKeys.runRangeSummary(runId, range.from, range.to),
  };
}

/** A share page's: the link's token is the permission. */
export function sharedRangeSummary(token: string): { load: ChartZoom["loadSummary"]; key: ChartZoom["summaryKey"] } {
  return {
    load: (range, signal) => reportApi.publicRangeSummary(token, range, signal),
    key: (range) => queryKeys.sharedRangeSummary(token, range.from, range.to),
  };
}

/** "12 s – 32 s": a range as seconds since the run's start. */
export function rangeText(range: ViewRange): string {
  return `${formatDuration(range.from)} – ${formatDuration(range.to)}`;
}

/** Above the charts: which part of the run they show, and Reset; or how to zoom. */
export function ZoomBar() {
  const zoom = useChartZoom();
  if (!zoom || zoom.start === null) return null;
  return (
    <ZoomRangeBar
      range={zoom.range}
      select={zoom.select}
      showing={(range) => `${rangeText(range)} of the run (seconds since its start)`}
    />
  );
}

/**
 * The zoom bar of any set of charts zoomed together (a run's page, Compare): the range shown and Reset, or how to
 * zoom; `showing` words the range.
 */
export function ZoomRangeBar({
  range,
  select,
  showing,
}: {
  range: ViewRange | null;
  select: (range: ViewRange | null) => void;
  showing: (range: ViewRange) => string;
}) {
  return (
    <div className="zoom-bar no-print" data-testid="zoom-bar">
      {range ? (
        <>
          <span data-testid="zoom-range">Showing {showing(range)}</span>
          <button type="button" className="button" onClick={() => select(null)} data-testid="zoom-reset">
            Reset zoom
          </button>
        </>
      ) : (
        <span className="muted small">
          Drag across a chart to zoom every chart into those seconds; double-click a chart to zoom out.
        </span>
      )}
    </div>
  );
}
