"use client";

import { useState } from "react";
import type { QueryKey } from "@tanstack/react-query";
import { useApiQuery } from "./use-api-query";

/** Counts fresh reads across the tab, so each one has a cache key no earlier page filled. */
let reads = 0;

export interface FreshRead<T> {
  /** The first answer of this read, kept (null until it comes). */
  data: T | null;
  /** Why this read failed; null once it answered (a later refetch's failure does not replace the kept answer). */
  error: string | null;
  /** Which read `data` is from: a form keyed by it starts again when `again` brings a new answer. */
  read: number;
  /** Read again under a new key, e.g. after the API refused a save from an older version. */
  again: () => void;
}

/**
 * A read a form starts from (the plan editor, a plan's copy). Shown from the cache like other reads, the form would
 * start from whatever an earlier page cached and then swap its base when the refetch answered, losing the user's
 * edits; so each opening reads under its own key (`keyOf(read)`) and keeps the first answer, and a refetch (the
 * window regaining focus) never changes what the form started from.
 */
export function useFreshRead<T>(
  keyOf: (read: number) => QueryKey,
  load: (signal: AbortSignal) => Promise<T>,
): FreshRead<T> {
  const [read, setRead] = useState(() => ++reads);
  const query = useApiQuery(keyOf(read), load);
  const [kept, setKept] = useState<{ read: number; data: T } | null>(null);
  if (query.data !== null && kept?.read !== read) setKept({ read, data: query.data });
  const answered = kept !== null && kept.read === read;
  return {
    data: answered ? kept.data : null,
    error: answered ? null : query.error,
    read,
    again: () => setRead(++reads),
  };
}
