import type { Redis } from "ioredis";

export interface RateLimitRule {
  limit: number;
  windowSec: number;
}

export interface RateLimitResult {
  allowed: boolean;
  /** Seconds until the window resets (for Retry-After). */
  retryAfterSec: number;
}

/**
 * Fixed-window counters in Redis, so a limit holds across every API instance. One INCR per attempt;
 * the first attempt of a window sets its expiry.
 */
export function createRateLimiter(redis: Redis, prefix: string) {
  return {
    async hit(bucket: string, key: string, rule: RateLimitRule): Promise<RateLimitResult> {
      const window = Math.floor(Date.now() / 1000 / rule.windowSec);
      const redisKey = `${prefix}:rl:${bucket}:${key}:${window}`;
      const results =
        (await redis
          .multi()
          .incr(redisKey)
          .expire(redisKey, rule.windowSec + 1)
          .exec()) ?? [];
      const count = Number(results[0]?.[1] ?? 0);
      const retryAfterSec = Math.max(1, (window + 1) * rule.windowSec - Math.floor(Date.now() / 1000));
      return { allowed: count <= rule.limit, retryAfterSec };
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
