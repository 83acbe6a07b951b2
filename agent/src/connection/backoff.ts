export interface BackoffOptions {
  baseMs: number;
  capMs: number;
  random?: () => number;
}

/** Reconnect timing: start 500 ms, double per failed attempt, never above 15 s. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, capMs: 15_000 };

/**
 * Exponential backoff with full jitter: a uniform delay in [0, min(cap, base * 2^attempt)).
 * Full jitter spreads a fleet of agents that lost the API at the same instant.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const random = options.random ?? Math.random;
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}
