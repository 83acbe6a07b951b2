import { z } from "zod";
import { SEARCH_PHASES } from "./capacity-search";

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
  /** An automatic search's phase: coarse levels up to the first break, settle back at the last that held, then fine ones between. */
  phase: z.enum(SEARCH_PHASES).optional(),
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
  /**
   * The κ the fit first found when it was negligible (its term moved the prediction at the largest measured
   * step by under 1%) and so was taken as 0: the data show no retrograde region. Absent otherwise.
   */
  droppedKappa: z.number().min(0).optional(),
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

/** GET /api/runs/:id/report and the public share page: everything the report shows. */
// RunReport lives in run.ts (it needs RunView, which needs this file).

/** POST /api/runs/:id/share-links body. */
export const CreateShareLink = z.object({
  /** Omitted: the link works until revoked. */
  expiresInDays: z.number().int().min(1, "must be at least 1 day").max(365, "must be at most 365 days").optional(),
});
export type CreateShareLink = z.infer<typeof CreateShareLink>;

/** A read-only public link to one run's report; the token is shown once, in `url`. */
export const ShareLinkView = z.object({
  id: z.string().uuid(),
  runId: z.string().uuid(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ShareLinkView = z.infer<typeof ShareLinkView>;

export const ShareLinkCreated = ShareLinkView.extend({ token: z.string(), url: z.string() });
export type ShareLinkCreated = z.infer<typeof ShareLinkCreated>;

/** POST /api/runs/:id/estimates body: keep this run's capacity against a target and build. */
export const SaveEstimate = z.object({
  targetName: z.string().trim().min(1, "name the server under test, e.g. lobby").max(100),
  build: z.string().trim().min(1, "give the build or version label, e.g. 1.4").max(100),
});
export type SaveEstimate = z.infer<typeof SaveEstimate>;

/** A saved capacity estimate, with the change against the one saved before it for the same target. */
export const EstimateView = z.object({
  id: z.string().uuid(),
  targetName: z.string(),
  build: z.string(),
  runId: z.string().uuid(),
  clients: z.number().int().nullable(),
  valid: z.boolean(),
  sentence: z.string(),
  createdAt: z.string(),
  /** Percent change of `clients` against the previous estimate; null for the first or when either has none. */
  changePercent: z.number().nullable(),
  /** "−12% since build 1.3", or null. */
  change: z.string().nullable(),
});
export type EstimateView = z.infer<typeof EstimateView>;

/** GET /api/targets items. */
export const TargetView = z.object({ name: z.string(), estimates: z.number().int(), latest: EstimateView });
export type TargetView = z.infer<typeof TargetView>;

/** GET /api/runs/compare?ids=a,b: runs side by side; deltas are against the first run. */
export const RunComparison = z.object({
  runs: z.array(z.object({
    id: z.string().uuid(),
    planName: z.string(),
    createdAt: z.string(),
    status: z.string(),
    summary: z.record(z.string(), z.number().nullable()),
    /** Percent change of each summary figure against the first run (null where either is null or zero). */
    deltaPercent: z.record(z.string(), z.number().nullable()),
  })),
});
export type RunComparison = z.infer<typeof RunComparison>;
