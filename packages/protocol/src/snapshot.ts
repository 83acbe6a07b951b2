import { z } from "zod";

/** Per-second counters one agent measured; totals for the interval, not running sums. */
export const SnapshotCounters = z.object({
  connectionsOpen: z.number().int().min(0),
  connectionsOpened: z.number().int().min(0),
  connectionsFailed: z.number().int().min(0),
  connectionsClosed: z.number().int().min(0),
  messagesSent: z.number().int().min(0),
  messagesReceived: z.number().int().min(0),
  bytesSent: z.number().int().min(0),
  bytesReceived: z.number().int().min(0),
  errors: z.number().int().min(0),
});
export type SnapshotCounters = z.infer<typeof SnapshotCounters>;

/** The load generator's own health, so a report can blame the agent rather than the server. */
export const AgentHealth = z.object({
  cpuPercent: z.number().min(0),
  eventLoopP99Ms: z.number().min(0),
  rssBytes: z.number().int().min(0),
});
export type AgentHealth = z.infer<typeof AgentHealth>;

/** HDR histograms (microseconds), compressed and base64-encoded by hdr-histogram-js. */
export const SnapshotHistograms = z.object({
  rttUs: z.string(),
});
export type SnapshotHistograms = z.infer<typeof SnapshotHistograms>;

/** Sent by an agent once per second during a run; ingest is idempotent on (run, agent, seq). */
export const MetricSnapshot = z.object({
  runId: z.string().uuid(),
  seq: z.number().int().min(0),
  /** Start of the one-second interval, epoch milliseconds (agent clock). */
  intervalStart: z.number().int().min(0),
  intervalMs: z.number().int().min(1).max(60_000),
  clients: z.number().int().min(0),
  counters: SnapshotCounters,
  histograms: SnapshotHistograms,
  health: AgentHealth,
});
export type MetricSnapshot = z.infer<typeof MetricSnapshot>;

/** One second of a run, merged across agents (histograms merged, never percentiles averaged). */
export const SeriesPoint = z.object({
  /** Epoch seconds. */
  t: z.number().int(),
  agents: z.number().int().min(0),
  clients: z.number().int().min(0),
  connections: z.number().int().min(0),
  messagesSentPerSec: z.number().min(0),
  messagesReceivedPerSec: z.number().min(0),
  bytesSentPerSec: z.number().min(0),
  bytesReceivedPerSec: z.number().min(0),
  errors: z.number().int().min(0),
  rttP50Ms: z.number().nullable(),
  rttP99Ms: z.number().nullable(),
  rttMaxMs: z.number().nullable(),
});
export type SeriesPoint = z.infer<typeof SeriesPoint>;
