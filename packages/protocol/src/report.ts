import { z } from "zod";

/** One SLO's verdict: over the whole run, and second by second. */
export const SloVerdict = z.object({
  metric: z.string(),
  below: z.number(),
  /** The value over the whole run (merged histograms / totals); null when the run measured nothing for it. */
  value: z.number().nullable(),
  passed: z.boolean(),
  /** Seconds whose own value broke the threshold, out of the seconds that measured it. */
  breachedSeconds: z.number().int().min(0),
  measuredSeconds: z.number().int().min(0),
  /** Epoch second of the first breach, if any. */
  firstBreachAt: z.number().int().nullable(),
});
export type SloVerdict = z.infer<typeof SloVerdict>;

/** The run's verdict: passed only when every SLO passed over the whole run. */
export const RunVerdict = z.object({ passed: z.boolean(), slos: z.array(SloVerdict) });
export type RunVerdict = z.infer<typeof RunVerdict>;

/** One step of a step-up (capacity search) run, measured over its hold. */
export const CapacityStep = z.object({
  step: z.number().int().min(0),
  clients: z.number().int().min(0),
  seconds: z.number().int().min(0),
  /** Messages received per second over the hold (the step's first second, still ramping, left out). */
  throughputPerSec: z.number().min(0),
  rttP99Ms: z.number().nullable(),
  slos: z.array(SloVerdict),
  held: z.boolean(),
  /** Agents that were the bottleneck during this step. */
  saturatedAgents: z.array(z.object({ agentId: z.string(), reason: z.string() })),
});
export type CapacityStep = z.infer<typeof CapacityStep>;

/** Universal Scalability Law fit X(N) = λN / (1 + σ(N−1) + κN(N−1)) of throughput against clients. */
export const UslFit = z.object({
  lambda: z.number(),
  sigma: z.number(),
  kappa: z.number(),
  /** Goodness of fit on throughput, 0..1. */
  rSquared: z.number(),
  /** Clients at which the fitted throughput peaks (null when κ is 0: no retrograde term). */
  peakClients: z.number().nullable(),
  peakThroughputPerSec: z.number().nullable(),
  /** Up to how many clients the fit's predictions may be trusted. */
  trustedUpToClients: z.number(),
});
export type UslFit = z.infer<typeof UslFit>;

/** What a capacity search found, with its evidence. */
export const CapacityEstimate = z.object({
  /** Largest step that held every SLO for its whole hold; null when the first step already broke. */
  clients: z.number().int().nullable(),
  valid: z.boolean(),
  /** Why the estimate cannot be trusted (an agent was the bottleneck), or why there is none. */
  problems: z.array(z.string()),
  /** The first step that broke, and which SLOs broke it. */
  breakingStep: z.number().int().nullable(),
  breakingSlos: z.array(z.string()),
  /** Clients at the step where throughput stopped growing with clients. */
  kneeClients: z.number().int().nullable(),
  usl: UslFit.nullable(),
  steps: z.array(CapacityStep),
  /** One sentence for the top of the report. */
  sentence: z.string(),
});
export type CapacityEstimate = z.infer<typeof CapacityEstimate>;
