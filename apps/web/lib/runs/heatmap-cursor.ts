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

/** Where the page's cursor stands: its second (epoch seconds, fractional) and the data point its legends read. */
export interface CursorAt {
  second: number;
  /** The x value (epoch seconds) of the point the line charts' legends show: uPlot's nearest, not always rounded. */
  legendSecond: number;
}

/** Joins the page's cursor: `onCursor` hears where it stands, or null when it left. */
export function joinRunCursor(onCursor: (at: CursorAt | null) => void): RunCursor {
  const sync = uPlot.sync(RUN_CURSOR);
  const listener = {
    pub(type: string, src: { cursor: uPlot.Cursor; data?: uPlot.AlignedData }, x: number, ...rest: number[]) {
      if (type === "mouseleave") onCursor(null);
      if (type !== "mousemove") return;
      const second = (src.cursor.sync?.values?.[0] as number | null | undefined) ?? null;
      if (x < 0 || second === null) return onCursor(null);
      // uPlot passes the index its legend shows last; the heatmap itself publishes none (its own pointer).
      const index = rest[3];
      const legendSecond = index == null ? undefined : src.data?.[0]?.[index];
      onCursor({ second, legendSecond: legendSecond ?? Math.round(second) });
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
