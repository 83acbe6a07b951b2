// The latency heatmap on the run page's one cursor (uPlot's cursor.sync key "run", as every line chart): a plain
// canvas is not a uPlot, so it joins the sync as a client of its own. It hears where the line charts' cursor is (the
// second under it, null when it left) and moves theirs by publishing a second as a plot would.
import uPlot from "uplot";

/** The sync key every chart of a run's page shares (charts/series-chart.tsx, charts/chart-zoom-plot.ts). */
export const RUN_CURSOR = "run";

/** What uPlot reads of a plot that publishes a cursor: its x value, its scales, its x axis's side (bottom). */
interface CursorSource {
  cursor: { sync: { values: [number | null, null]; scales: [string, null] } };
  axes: [{ side: number }];
}

export interface RunCursor {
  /** Puts every chart's cursor at `second` (epoch seconds), `heightShare` down the plot; null hides it. */
  move(second: number | null, heightShare?: number): void;
  /** Leaves the page's cursor (the heatmap is gone). */
  stop(): void;
}

/** Joins the page's cursor: `onSecond` hears the second under it (epoch seconds, fractional) or null. */
export function joinRunCursor(onSecond: (second: number | null) => void): RunCursor {
  const sync = uPlot.sync(RUN_CURSOR);
  const listener = {
    pub(type: string, src: { cursor: uPlot.Cursor }, x: number) {
      if (type === "mouseleave") onSecond(null);
      if (type !== "mousemove") return;
      const value = (src.cursor.sync?.values?.[0] as number | null | undefined) ?? null;
      onSecond(x < 0 ? null : value);
    },
  };
  sync.sub(listener as unknown as uPlot);
  const source: CursorSource = { cursor: { sync: { values: [null, null], scales: ["x", null] } }, axes: [{ side: 2 }] };
  const publish = (second: number | null, heightShare: number) => {
    source.cursor.sync.values[0] = second;
    // uPlot maps x by the value on the "x" scale, and y by its share of the height given (1 here).
    const at = second === null ? -10 : 0;
    sync.pub("mousemove", source as unknown as uPlot, at, second === null ? -10 : heightShare, 1, 1, 0);
  };
  return {
    move: (second, heightShare = 0.5) => publish(second, heightShare),
    stop: () => sync.unsub(listener as unknown as uPlot),
  };
}
