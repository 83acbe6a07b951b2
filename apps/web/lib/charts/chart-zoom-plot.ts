// How a run chart's uPlot zooms: a drag across the plot selects seconds (uPlot's select), which the page keeps
// as its view range for every chart (components/charts/chart-zoom.tsx); a double-click zooms out. The plot never sets
// its own scale from the drag: the range comes back to every chart alike, from the URL.
import type uPlot from "uplot";
import { selectedRange } from "./chart-range";
import type { ViewRange } from "./view-range";

/** What the plot reads when the user drags or double-clicks, kept in a ref so the plot is not rebuilt for it. */
export interface PlotZoom {
  start: number | null;
  range: ViewRange | null;
  select: (range: ViewRange | null) => void;
}

const NO_SELECTION = { left: 0, top: 0, width: 0, height: 0 };

/** The cursor's drag and double-click, and the hook that turns a finished drag into the page's range. */
export function zoomOptions(zoom: {
  current: PlotZoom | null;
}): Pick<uPlot.Options, "cursor"> & { hooks: Pick<uPlot.Hooks.Arrays, "setSelect"> } {
  return {
    cursor: {
      // One cursor across the run's charts: hover a second on one, read it on all.
      sync: { key: "run" },
      drag: { x: true, y: false, setScale: false, dist: 4 },
      bind: {
        dblclick: () => () => {
          if (zoom.current?.range) zoom.current.select(null);
          return null;
        },
      },
    },
    hooks: {
      setSelect: [
        (plot) => {
          const { left, width } = plot.select;
          // Only the plot the user dragged on answers: the others are shown the same drag through the cursor sync.
          const dragged = plot.cursor.event != null;
          plot.setSelect(NO_SELECTION, false);
          const current = zoom.current;
          if (!dragged || !current || current.start === null || width <= 0) return;
          const range = selectedRange(current.start, plot.posToVal(left, "x"), plot.posToVal(left + width, "x"));
          if (range) current.select(range);
        },
      ],
    },
  };
}
