import { z } from "zod";

// What a client does when the server drops it, and the load shape that drops clients on purpose to watch them come
// back. docs/protocols.md, "Reconnects and reconnect storms", explains them.

/** A client the server dropped (closed, reset, broke mid-run) reconnects and runs its session again, http steps and all. */
export const ReconnectPolicy = z.object({
  /** "never" (default): a dropped client stays gone; "immediately"; "backoff": full jitter, doubling per failed attempt. */
  policy: z.enum(["never", "immediately", "backoff"]).optional(),
  /** Attempts after one drop before the client gives up (default: no limit); a client that got back starts counting anew. */
  maxAttempts: z.number().int().min(1).max(1_000_000).optional(),
  /** "backoff": attempt n waits a uniform random time in [0, min(maxMs, initialMs · 2^n)). */
  backoff: z
    .object({
      /** Default 500 ms. */
      initialMs: z.number().int().min(1).max(600_000).optional(),
      /** Default 15000 ms. */
      maxMs: z.number().int().min(1).max(3_600_000).optional(),
    })
    .refine((backoff) => (backoff.initialMs ?? 500) <= (backoff.maxMs ?? 15_000), {
      message: "initialMs must not exceed maxMs (defaults 500 and 15000)",
    })
    .optional(),
});
export type ReconnectPolicy = z.infer<typeof ReconnectPolicy>;

/** Load shape: every `everySec` the agent itself closes `dropPercent`% of its connected clients (chosen at random) and they come back by the scenario's reconnect policy. */
export const ReconnectStormShape = z.object({
  kind: z.literal("reconnect-storm"),
  everySec: z.number().min(0.1, "must be at least 0.1 s").max(3_600),
  dropPercent: z.number().min(0.1, "must be above 0").max(100, "must be at most 100"),
});
export type ReconnectStormShape = z.infer<typeof ReconnectStormShape>;

/** A plan's check that a reconnect storm's clients can come back at all (use in the plan's superRefine). */
export function checkReconnectStorm(
  plan: { load: { shape?: { kind: string } }; scenario: { kind: string; reconnect?: ReconnectPolicy } },
  ctx: z.RefinementCtx,
): void {
  if (plan.load.shape?.kind !== "reconnect-storm") return;
  if ((plan.scenario.reconnect?.policy ?? "never") !== "never") return;
  ctx.addIssue({
    code: "custom",
    path: ["scenario", "reconnect", "policy"],
    message:
      'a reconnect storm drops clients for them to come back: set scenario.reconnect.policy to "immediately" or "backoff"',
  });
}
