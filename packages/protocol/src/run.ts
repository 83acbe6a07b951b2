import { z } from "zod";
import { PlanSpec } from "./plan";
import { AgentHealthPoint, cohortRecord, NetworkPath, ScenarioFigures, SeriesPoint } from "./snapshot";
import { CapacityEstimate, RunVerdict } from "./report";
import { RunServerSeries, ServerPoint } from "./server-watch";
import { RunNotesView } from "./run-notes";
import { ErrorSampleView } from "./error-samples";
import { RunRooms } from "./rooms";

/** A run's lifecycle states; core/run-state.ts holds the transition function. */
export const RunStatus = z.enum([
  "queued",
  "preparing",
  "running",
  "stopping",
  "finished",
  "aborted",
  "failed",
  "degraded",
]);
export type RunStatus = z.infer<typeof RunStatus>;

export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ["finished", "aborted", "failed"];

/** Totals over a whole run, computed once when it ends from the stored snapshots. */
const RunSummaryFigures = z.object({
  agents: z.number().int().min(0),
  peakClients: z.number().int().min(0),
  peakConnections: z.number().int().min(0),
  durationSec: z.number().min(0),
  messagesSent: z.number().int().min(0),
  messagesReceived: z.number().int().min(0),
  messagesPerSec: z.number().min(0),
  connectionsFailed: z.number().int().min(0),
  connectionsOpened: z.number().int().min(0).optional(),
  /**
   * Established connections the server ended (closed, reset, broke): not counted in connectionsFailed, which counts
   * connects that never opened, so a server that died mid-run reads here, not as 0 failures. Absent in runs stored
   * before it was kept.
   */
  connectionsDropped: z.number().int().min(0).optional(),
  errors: z.number().int().min(0),
  rttP50Ms: z.number().nullable(),
  rttP99Ms: z.number().nullable(),
  rttMaxMs: z.number().nullable(),
  /** Round trips timed: the samples behind the rtt figures (absent in runs stored before it was kept). */
  roundTrips: z.number().int().min(0).optional(),
  ...ScenarioFigures.shape,
  /** Agents that were the bottleneck at some point: how many seconds, and why (the first reason seen). */
  saturatedAgents: z
    .array(z.object({ agentId: z.string().uuid(), seconds: z.number().int(), reason: z.string() }))
    .optional(),
});

/**
 * One cohort's totals (plan.network), computed as the run's are over its clients' figures only, so anything that
 * reads a run's summary (an SLO, a report section) reads a cohort's the same way. `applied` says how its network
 * conditions were applied; "above-stream" means TCP saw the rig's round trip (docs/networks.md).
 */
export const CohortSummary = RunSummaryFigures.omit({ saturatedAgents: true }).extend({ applied: NetworkPath });
export type CohortSummary = z.infer<typeof CohortSummary>;

export const RunSummary = RunSummaryFigures.extend({
  /** plan.network: each cohort's totals, by cohort name. */
  cohorts: cohortRecord(CohortSummary).optional(),
});
export type RunSummary = z.infer<typeof RunSummary>;

/** Something that happened to a run and belongs in its report (agent lost, aborted by a user, ...). */
export const RunEventView = z.object({
  at: z.string(),
  // queued: the run waits for its agents (online, only busy); the message names them and their runs.
  // judged-again: seconds reached the run after it closed, and its summary and verdict were judged again.
  kind: z.enum([
    "agent-lost",
    "agent-returned",
    "aborted",
    "stage",
    "search-ended",
    "seconds-lost",
    "queued",
    "judged-again",
  ]),
  agentId: z.string().uuid().nullable(),
  message: z.string(),
});
export type RunEventView = z.infer<typeof RunEventView>;

/** GET /api/runs/:id and list items: a run as the browser sees it. */
export const RunView = z.object({
  id: z.string().uuid(),
  planId: z.string().uuid(),
  planName: z.string(),
  /** The plan version the run was started from; `spec` is the run's own copy of it. */
  planVersion: z.number().int().nullable().optional(),
  status: RunStatus,
  spec: PlanSpec,
  error: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  /** Who started it, as the audit log names actors (an email, "token <name>"); null for runs from before it was kept. */
  startedBy: z.string().nullable().optional(),
  /** That person's name, when `startedBy` is a member's email (the dashboard and the PDF say "by Ann Lee", not "by ann"). */
  startedByName: z.string().nullable().optional(),
  summary: RunSummary.nullable(),
  events: z.array(RunEventView).default([]),
  /** The plan's SLOs judged when the run ended; null before, or when the plan has none. */
  verdict: RunVerdict.nullable().optional(),
  /** Step-up runs: the capacity estimate with its evidence. */
  capacity: CapacityEstimate.nullable().optional(),
  /** The team's note and tags (PATCH /api/runs/:id). */
  ...RunNotesView.shape,
});
export type RunView = z.infer<typeof RunView>;

/** GET /api/runs/:id/report and the public share page (GET /api/public/reports/:token): everything the report shows. */
export const RunReport = z.object({
  run: RunView,
  series: z.array(SeriesPoint),
  /** The server under test, when the plan watched it (agent/PROTOCOL.md §11). */
  server: RunServerSeries.optional(),
  /** The first distinct samples of each error kind, in the order they happened (error-samples.ts); secrets taken out. */
  errorSamples: z.array(ErrorSampleView).optional(),
  /** movement-sync: the worst rooms across the agents and the spread over all rooms (rooms.ts). */
  rooms: RunRooms.optional(),
});
export type RunReport = z.infer<typeof RunReport>;

/** GET /api/runs/:id/series: every merged second so far. */
export const RunSeries = z.object({ runId: z.string().uuid(), points: z.array(SeriesPoint) });
export type RunSeries = z.infer<typeof RunSeries>;

/** Browser live stream (WS /api/runs/:id/live), server → browser. */
export const LiveMessage = z.discriminatedUnion("type", [
  /** A second merged across agents, without `agentHealth` (that follows in "agent-health" messages). */
  z.object({ type: z.literal("point"), point: SeriesPoint }),
  /**
   * Second `t`'s health of the agents a point of it has just carried for the first time (an agent's health in a
   * second never changes, so a browser adds these to that second's point). Apart from the point because the
   * point is re-published as a second's snapshots arrive, and every agent's health in each copy was ~340 KB at
   * 2,000 agents.
   */
  z.object({ type: z.literal("agent-health"), t: z.number().int(), agents: z.array(AgentHealthPoint) }),
  z.object({ type: z.literal("run"), run: RunView }),
  /** One watched second of the server under test. */
  z.object({ type: z.literal("server"), point: ServerPoint }),
]);

/**
 * What the live stream carries: each message numbered per run. A browser that sees a gap in `seq` (or a
 * smaller one, after a Redis restart) refetches the series instead of trusting what it has.
 */
export const LiveEnvelope = z.object({ seq: z.number().int().min(0), message: LiveMessage });
export type LiveEnvelope = z.infer<typeof LiveEnvelope>;
export type LiveMessage = z.infer<typeof LiveMessage>;
