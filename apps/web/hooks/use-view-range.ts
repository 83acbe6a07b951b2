"use client";

import { useCallback } from "react";
import { readViewRange, withViewRange, type ViewRange } from "../lib/charts/view-range";
import { useQueryState } from "./use-query-state";

/** The page's zoomed range, kept in its URL (`?from=&to=`, lib/charts/view-range.ts); Back undoes a zoom. */
export function useViewRange(): [ViewRange | null, (range: ViewRange | null) => void] {
  const [range, show] = useQueryState(readViewRange, "push");
  const select = useCallback(
    (next: ViewRange | null) => show(next, withViewRange(window.location.search, next)),
    [show],
  );
  return [range, select];
}
