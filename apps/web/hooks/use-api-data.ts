"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { errorMessage, isUnauthenticated } from "../lib/api-client";

export interface ApiData<T> {
  data: T | null;
  error: string | null;
  reload: () => void;
}

/**
 * Loads `load` once, again every `pollMs` if given, and again whenever `key` changes. Keeps the last good data when a
 * later poll fails, so a blip shows an error line instead of blanking the page.
 */
export function useApiData<T>(load: (signal: AbortSignal) => Promise<T>, pollMs?: number, key?: string): ApiData<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const router = useRouter();
  const loadRef = useRef(load);
  useEffect(() => {
    loadRef.current = load;
  });

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        const next = await loadRef.current(controller.signal);
        if (controller.signal.aborted) return;
        setData(next);
        setError(null);
      } catch (failure) {
        if (controller.signal.aborted) return;
        if (isUnauthenticated(failure)) {
          router.replace("/sign-in");
          return;
        }
        setError(errorMessage(failure));
      }
      if (pollMs && !controller.signal.aborted) timer = setTimeout(tick, pollMs);
    };
    void tick();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
    // A new `key` (what is asked for, e.g. a filter) loads at once rather than at the next poll.
  }, [pollMs, generation, router, key]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { data, error, reload };
}
