"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";

/**
 * A page's state kept in its URL's query (the runs list's filter, a run page's zoom). Local state answers at once;
 * the URL follows through the History API (no server round trip, no race between quick changes): `replace` keeps
 * one history entry, `push` lets Back undo a change. A navigation to other query parameters (a link, Back) flows
 * back in through `read`.
 */
export function useQueryState<T>(
  read: (query: URLSearchParams) => T,
  mode: "push" | "replace",
): [T, (next: T, search: string) => void] {
  const pathname = usePathname();
  const query = useSearchParams();
  const queryText = query.toString();
  const [value, setValue] = useState<T>(() => read(new URLSearchParams(queryText)));
  const written = useRef(queryText);
  // `read` is a parser, the same for the page's life (often an arrow made anew each render): only the query's text
  // changes what it answers, so the latest one is read through a ref.
  const reader = useRef(read);
  useEffect(() => {
    reader.current = read;
  });
  useEffect(() => {
    if (queryText === written.current) return;
    written.current = queryText;
    setValue(reader.current(new URLSearchParams(queryText)));
  }, [queryText]);
  const show = useCallback(
    (next: T, search: string) => {
      setValue(next);
      const text = search.replace(/^\?/, "");
      if (text === window.location.search.replace(/^\?/, "")) return;
      written.current = text;
      const url = `${pathname}${text ? `?${text}` : ""}`;
      if (mode === "push") window.history.pushState(null, "", url);
      else window.history.replaceState(null, "", url);
    },
    [pathname, mode],
  );
  return [value, show];
}
