"use client";

import { keepPreviousData, useQuery, type QueryKey } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { errorMessage, isUnauthenticated } from "../lib/shared/api-client";

export interface ApiQuery<T> {
  data: T | null;
  /** The API's message (errorMessage), also while the last good data stays shown after a failed poll. */
  error: string | null;
  /** True while `data` is the previous key's answer (the next page is on its way). */
  previous: boolean;
}

export interface ApiQueryOptions {
  /** Ask again every this many ms while the page is open (and the tab visible). */
  pollMs?: number;
  /** Keep showing the previous key's data while the new one loads (paging, filters). */
  keepPrevious?: boolean;
}

/**
 * An API read through TanStack Query, cached under `key`: polling, retries and invalidation live in the query client
 * (lib/shared/query-client.ts) instead of each page's own effect. A 401 goes to sign-in, as every page did by hand.
 */
export function useApiQuery<T>(
  key: QueryKey,
  load: (signal: AbortSignal) => Promise<T>,
  options: ApiQueryOptions = {},
): ApiQuery<T> {
  const router = useRouter();
  const query = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => load(signal),
    refetchInterval: options.pollMs ?? false,
    placeholderData: options.keepPrevious ? keepPreviousData : undefined,
  });
  const signedOut = query.isError && isUnauthenticated(query.error);
  useEffect(() => {
    if (signedOut) router.replace("/sign-in");
  }, [signedOut, router]);
  return {
    data: query.data ?? null,
    error: query.isError && !signedOut ? errorMessage(query.error) : null,
    previous: query.isPlaceholderData,
  };
}
