import { QueryClient } from "@tanstack/react-query";
import { ApiError } from "./api-client";

const RETRIES = 2;

/**
 * Retries only what may pass on its own: the server unreachable or a 5xx. A 4xx (signed out, forbidden, not found,
 * a contract drift) answers the same again, so its message shows at once.
 */
export function shouldRetry(failures: number, error: unknown): boolean {
  if (failures >= RETRIES) return false;
  if (!(error instanceof ApiError)) return false;
  return error.status === 0 || error.status >= 500;
}

/** The web's one cache of API reads; made per browser tab by QueryProvider. */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Always ask again when a page mounts (staleTime 0): lists change under the user (agents join, runs finish).
      queries: { retry: shouldRetry, staleTime: 0 },
      mutations: { retry: false },
    },
  });
}
