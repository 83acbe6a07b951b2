"use client";

import { useEffect, useRef, type RefObject } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

/**
 * A uPlot plot in the returned element, as wide as it, made afresh when `options` or `data` change (callers memoise
 * both) and destroyed on unmount. For the small, settled charts (compare, a plan's trend); the run's live charts
 * feed one plot with setData instead (series-chart.tsx).
 */
export function useUPlot(
  options: Omit<uPlot.Options, "width">,
  data: uPlot.AlignedData,
): RefObject<HTMLDivElement | null> {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const plot = new uPlot({ ...options, width: element.clientWidth || 600 }, data, element);
    const observer = new ResizeObserver(() => {
      if (element.clientWidth > 0 && element.clientWidth !== plot.width)
        plot.setSize({ width: element.clientWidth, height: options.height });
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [options, data]);
  return ref;
}
