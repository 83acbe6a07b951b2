import type { LatencyStats } from "./snapshot";

/**
 * Latency figures for unit tests (the protocol's and the web's): p50 and p99 as given, p90 and max at the p99, over
 * `count` samples (10, or none when there are no figures).
 */
export function latencyStats(
  p50Ms: number | null,
  p99Ms: number | null,
  count = p50Ms === null && p99Ms === null ? 0 : 10,
): LatencyStats {
  return { count, p50Ms, p90Ms: p99Ms, p99Ms, maxMs: p99Ms };
}
