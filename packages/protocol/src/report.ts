import { z } from "zod";
import { SEARCH_PHASES } from "./capacity-search";

/** One SLO's verdict: over the whole run, and second by second. */
export const SloVerdict = z.object({
  metric: z.string(),
  below: z.number(),
  /** The SLO's network cohort (plan.network), judged on its clients' figures only; absent for the whole run. */
  cohort: z.string().optional(),
  /** The value over the whole run (merged histograms / totals); null when the run measured nothing for it. */
  value: z.number().nullable(),
  /** `met` only with data: an SLO over zero samples, or with too few measured seconds under load, is `no-data`. */
  status: z.enum(["met", "breached", "no-data"]).optional(),
  /** status === "met". */
  passed: z.boolean(),
  /** Why the status is `no-data` ("no round trip was measured"), when it is. */
  note: z.string().optional(),
  /** Seconds whose own value broke the threshold, out of the seconds that measured it. */
  breachedSeconds: z.number().int().min(0),
  measuredSeconds: z.number().int().min(0),
  /** Epoch second of the first breach, if any. */
  firstBreachAt: z.number().int().nullable(),
});
export type SloVerdict = z.infer<typeof SloVerdict>;

/**
 * How a run ended for a CI gate, worst first: `aborted` (stopped by a user or the plan's policy), `failed` (the run
 * failed or measured nothing), `breached` (an SLO was broken over enough data, or a capacity search's estimate is
 * below its `minClients`), `incomplete` (the load did not run as planned, or an SLO or the estimate lacks the data
 * to say: never a pass), `passed` (the load ran as planned for its planned time and every SLO was met over enough data).
 */
export const VERDICT_OUTCOMES = ["aborted", "failed", "breached", "incomplete", "passed"] as const;
export const VerdictOutcome = z.enum(VERDICT_OUTCOMES);
export type VerdictOutcome = z.infer<typeof VerdictOutcome>;
/** Each outcome as a CI log prints it (the agent's `run` and `throng run`): only a pass reads PASSED. */
export const VERDICT_OUTCOME_WORDS = {
  passed: "PASSED",
  breached: "FAILED",
  incomplete: "INCOMPLETE (not passed)",
  aborted: "ABORTED",
  failed: "ERROR",
} as const satisfies Record<VerdictOutcome, string>;

/** Whether the load ran as the plan said: its planned seconds, its send schedule, its clients connected. */
export const LoadCheck = z.object({
  /** Seconds the load was planned to run, and seconds that delivered measurements. */
  plannedSeconds: z.number().int().min(0),
  measuredSeconds: z.number().int().min(0),
  /**
   * Over the steady seconds: the sends the plan asks of the clients connected in each (its rate × those clients, so
   * a second an agent stood still in counts), and the sends made. A skipped send (the previous message unanswered,
   * or a due time the agent missed) is not a send: `skippedSends` counts them apart.
   */
  scheduledSends: z.number().int().min(0),
  sentSends: z.number().int().min(0),
  skippedSends: z.number().int().min(0).optional(),
  /** Steady seconds whose sends fell more than 10% short of the schedule. */
  shortSeconds: z.number().int().min(0),
  /** Fewest clients connected in a steady second at a held level, against the clients the plan has running then (not those the reporting agents held). */
  minConnectedShare: z.number().min(0).nullable(),
  /**
   * The epoch second of that fewest, and the clients the plan had running then, when fewer than 90% were connected:
   * the headline says when the load was lost and what it held, never "at N clients" of a load that did not hold.
   * Absent when the load held (and in verdicts stored before it was kept).
   */
  leastConnectedAt: z.number().int().optional(),
  leastConnectedPlanned: z.number().int().min(0).optional(),
  /** Messages sent and still unanswered when the run ended (not errors, not counted against reach). */
  inFlightAtEnd: z.number().int().min(0),
});
export type LoadCheck = z.infer<typeof LoadCheck>;

/**
 * The run's verdict (stored when it ends; also for plans with no SLOs). `passed` is `outcome === "passed"`;
 * `reasons` says in words why it is not, `warnings` what a reader should know even when it is (heavy CPU steal).
 */
export const RunVerdict = z.object({
  passed: z.boolean(),
  outcome: VerdictOutcome.optional(),
  reasons: z.array(z.string()).default([]),
  warnings: z.array(z.string()).default([]),
  slos: z.array(SloVerdict),
  load: LoadCheck.optional(),
});
export type RunVerdict = z.infer<typeof RunVerdict>;

/** One step of a step-up (capacity search) run, measured over its hold. */
export const CapacityStep = z.object({
  step: z.number().int().min(0),
  /** An automatic search's phase: coarse levels up to the first break, settle back at the last that held, then fine ones between. */
  phase: z.enum(SEARCH_PHASES).optional(),
  clients: z.number().int().min(0),
  seconds: z.number().int().min(0),
  /** Messages received per second over the step's steady seconds (those before its connections reached the level left out). */
  throughputPerSec: z.number().min(0),
  rttP99Ms: z.number().nullable(),
  slos: z.array(SloVerdict),
  held: z.boolean(),
  /** Agents that were the bottleneck during this step. */
  saturatedAgents: z.array(z.object({ agentId: z.string(), reason: z.string() })),
  /** An automatic search's first level held again after it broke (phase coarse): the try before it counts neither way. */
  retry: z.boolean().optional(),
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

/**
 * What a capacity search found, with its evidence (stored with the run when it ends; the run verdict reads
 * `valid`, `clients` and `meetsMinClients`). Fields marked "absent in older reports" are optional only so that
 * reports stored before them still parse.
 */
export const CapacityEstimate = z.object({
  /**
   * The capacity held: the largest step that held every SLO over its steady seconds, below every break, and not
   * contradicted by a later step; null when there is none (the first step broke in every try, or the server did
   * not hold that level again after the break: see `lastHeldClients`, `recovered`, `range`).
   */
  clients: z.number().int().nullable(),
  /** The estimate may be stated: `clients` is not null and nothing in `problems` undermines it. */
  valid: z.boolean(),
  /** Why the estimate cannot be trusted (an agent was the bottleneck, the server did not recover), or why there is none. */
  problems: z.array(z.string()),
  /** The largest step that held below every break, before weighing the steps after it: `clients` unless contradicted. Absent in older reports. */
  lastHeldClients: z.number().int().nullable().optional(),
  /**
   * An automatic search that went back to its last held level after the break: whether that level held again.
   * false: the server did not recover, so `clients` is null and `valid` false. Null when it never went back. Absent in older reports.
   */
  recovered: z.boolean().nullable().optional(),
  /** When no level can be claimed as held but the evidence bounds the capacity: between `from` (held) and `to` clients. Absent in older reports. */
  range: z.object({ from: z.number().int(), to: z.number().int() }).nullable().optional(),
  /** The plan's step-up `minClients`, when it sets one. Absent in older reports. */
  minClients: z.number().int().nullable().optional(),
  /** Whether a valid estimate holds at least `minClients`; null when the plan sets none or the estimate is not valid. Absent in older reports. */
  meetsMinClients: z.boolean().nullable().optional(),
  /** The lowest step that broke (settle steps and first tries superseded by a retry left out), and which SLOs broke it. */
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
/** Two to ten run ids, comma-separated: as a pattern, so the OpenAPI document says what the comparison needs. */
const RUN_ID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
const RUN_ID_LIST = new RegExp(`^ *${RUN_ID} *(, *${RUN_ID} *){1,9}$`);

/**
 * GET …/report.pdf?locale=de-DE&tz=Europe/Berlin: the reader's locale and time zone, so the PDF writes numbers and
 * dates as their dashboard does (the dashboard sends the browser's); left out, the API's own.
 */
export const ReportPdfQuery = z.object({
  locale: z
    .string()
    .max(35)
    .regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, "a language tag, e.g. en-GB or de-DE")
    .optional(),
  tz: z
    .string()
    .max(64)
    .regex(/^[A-Za-z0-9_+\-/]+$/, "an IANA time zone, e.g. Europe/Berlin")
    .optional(),
});
export type ReportPdfQuery = z.infer<typeof ReportPdfQuery>;

/** GET /api/runs/compare?ids=a,b: the runs to put side by side, the first the baseline. */
export const CompareQuery = z.object({
  ids: z
    .string()
    .regex(RUN_ID_LIST, "give 2 to 10 run ids, comma-separated (?ids=a,b)")
    .transform((v) => v.split(",").map((s) => s.trim()))
    .pipe(z.array(z.guid("each id must be a run UUID"))),
});

export const RunComparison = z.object({
  runs: z.array(
    z.object({
      id: z.string().uuid(),
      planName: z.string(),
      createdAt: z.string(),
      status: z.string(),
      /** The plan's target protocol (tcp, kcp, ...): Compare puts a TCP run beside a KCP run. */
      protocol: z.string().optional(),
      /** The summary's figures; with a KCP run among those compared, also kcpRetransmits and kcpOverheadPercent (null for a run without KCP). */
      summary: z.record(z.string(), z.number().nullable()),
      /** Percent change of each summary figure against the first run (null where either is null or zero). */
      deltaPercent: z.record(z.string(), z.number().nullable()),
      /** Each per-second figure's standard deviation over the run's steady seconds (compare-noise.ts); null under two seconds. */
      spread: z.record(z.string(), z.number().nullable()),
      /** Whether each change against the first run is inside either run's own spread (compare-noise.ts); null where unknown. */
      withinNoise: z.record(z.string(), z.boolean().nullable()),
      /** The stored verdict's outcome and each SLO's verdict (the compare table's SLO rows); null and [] before it ends. */
      outcome: VerdictOutcome.nullable(),
      slos: z.array(SloVerdict),
    }),
  ),
});
export type RunComparison = z.infer<typeof RunComparison>;
