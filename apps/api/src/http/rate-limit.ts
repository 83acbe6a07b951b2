import type { FastifyReply } from "fastify";
import { ThrongError } from "@throng/protocol/errors";
import type { RateLimiter, RateLimitRule } from "@throng/runtime/rate-limit";

/**
 * One attempt against a Redis-backed limit (shared by every API instance). Over it: a Retry-After header and a
 * rate_limited error (429) whose message is `tooMany` followed by when to try again.
 */
export async function enforceRateLimit(
  limiter: RateLimiter,
  reply: FastifyReply,
  limit: { bucket: string; key: string; rule: RateLimitRule; tooMany: string },
): Promise<void> {
  const result = await limiter.hit(limit.bucket, limit.key, limit.rule);
  if (result.allowed) return;
  reply.header("retry-after", String(result.retryAfterSec));
  throw new ThrongError("rate_limited", `${limit.tooMany}; try again in ${result.retryAfterSec} s`);
}

/** What a caller may do per window, as the message says it: "at most 30 a minute". */
export function perWindow(rule: RateLimitRule): string {
  return rule.windowSec === 60 ? `at most ${rule.limit} a minute` : `at most ${rule.limit} per ${rule.windowSec} s`;
}

const CALLER_LIMITED = { runCreate: "runs started", export: "report exports" } as const;

/**
 * Per-caller limits on the costly calls (starting runs, exporting reports), counted per API token or browser
 * session (`address:<ip>` for the public share page), so one CI job in a loop cannot starve the rest of its organisation.
 */
export function createCallerLimits(deps: {
  rateLimiter: RateLimiter;
  rateLimits: Record<keyof typeof CALLER_LIMITED, RateLimitRule>;
}) {
  return (caller: string, reply: FastifyReply, kind: keyof typeof CALLER_LIMITED): Promise<void> => {
    const rule = deps.rateLimits[kind];
    const who = caller.startsWith("token:")
      ? "this API token"
      : caller.startsWith("address:")
        ? "this address"
        : "this session";
    return enforceRateLimit(deps.rateLimiter, reply, {
      bucket: kind,
      key: caller,
      rule,
      tooMany: `Too many ${CALLER_LIMITED[kind]} by ${who} (${perWindow(rule)})`,
    });
  };
}
