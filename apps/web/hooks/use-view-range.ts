"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { readViewRange, withViewRange, type ViewRange } from "../lib/view-range";

/**
 * The page's zoomed range, kept in its URL (`?from=&to=`, lib/view-range.ts). Local state answers at once; the URL
 * follows through history.pushState, so Back undoes a zoom, and a navigation (Back, a pasted link) flows back in.
 */
export function useViewRange(): [ViewRange | null, (range: ViewRange | null) => void] {
  const pathname = usePathname();
  const query = useSearchParams();
  const queryText = query.toString();
  const [range, setRange] = useState<ViewRange | null>(() => readViewRange(query));
  const written = useRef(queryText);
  useEffect(() => {
    if (queryText === written.current) return;
    written.current = queryText;
    setRange(readViewRange(new URLSearchParams(queryText)));
  }, [queryText]);
  const show = useCallback(
    (next: ViewRange | null) => {
      const current = window.location.search;
      const search = withViewRange(current, next);
      setRange(next);
      if (search === (current === "?" ? "" : current)) return;
      written.current = search.replace(/^\?/, "");
      window.history.pushState(null, "", `${pathname}${search}`);
    },
    [pathname],
  );
  return [range, show];
}
