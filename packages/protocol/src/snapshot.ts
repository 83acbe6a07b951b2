import { z } from "zod";
import { CohortName, MAX_COHORTS } from "./network";
import { SCRIPT_METRIC_NAME } from "./script-metrics";
import { ERROR_SAMPLES_PER_SNAPSHOT, ErrorSample } from "./error-samples";
import { MAX_SESSION_STEPS } from "./session";
import { RoomsReport } from "./rooms";

/** A script metric's name as a snapshot's key (script-metrics.ts). */
const ScriptMetricKey = z.string().regex(new RegExp(`^${SCRIPT_METRIC_NAME}$`));

/** A session step's index in the plan's `session` (http steps included) as a key: at most MAX_SESSION_STEPS of them. */
export const SessionStepKey = z
  .string()
  .regex(/^(?:[0-9]|[1-9][0-9])$/, "must be a session step's index, e.g. 0")
  .refine((key) => Number(key) < MAX_SESSION_STEPS, { message: `a session has at most ${MAX_SESSION_STEPS} steps` });

/**
 * Why a session step failed: its expect step's timeout, failWhen or capture; its http step's status, timeout or
 * unreachable server; or "closed", the connection ended while the step ran.
 */
export const SessionStepFailure = z.enum([
  "session-timeout",
  "session-rejected",
  "session-capture",
  "http-status",
  "http-timeout",
  "http-error",
  "closed",
]);
export type SessionStepFailure = z.infer<typeof SessionStepFailure>;

/** Each session step's failures this second by cause, keyed by the step's index. */
export const SessionStepFailures = z.record(
  SessionStepKey,
  z.partialRecord(SessionStepFailure, z.number().int().min(0)),
);
export type SessionStepFailures = z.infer<typeof SessionStepFailures>;

/** KCP targets: what the protocol did this second, summed over the agent's connections (agent/src/transports/kcp.ts). */
export const KcpCounters = z.object({
  /** Segments sent again, for any reason (kcpFastRetransmits + kcpRtoExpiries). */
  kcpRetransmits: z.number().int().min(0).optional(),
  /** Segments sent again before their RTO because later ones were acknowledged (fast and early retransmit). */
  kcpFastRetransmits: z.number().int().min(0).optional(),
  /** Segments sent again because their RTO expired. */
  kcpRtoExpiries: z.number().int().min(0).optional(),
  kcpDatagramsSent: z.number().int().min(0).optional(),
  kcpDatagramsReceived: z.number().int().min(0).optional(),
  /** Bytes on the wire: UDP payloads, KCP headers, ACKs, probes and retransmissions included (IP and UDP headers not). */
  kcpWireBytesSent: z.number().int().min(0).optional(),
  kcpWireBytesReceived: z.number().int().min(0).optional(),
  /** Payload bytes: what the clients gave KCP to send and what it delivered to them, each byte once (framing included). */
  kcpPayloadBytesSent: z.number().int().min(0).optional(),
  kcpPayloadBytesReceived: z.number().int().min(0).optional(),
});
export type KcpCounters = z.infer<typeof KcpCounters>;
export const KCP_COUNTER_NAMES = Object.keys(KcpCounters.shape) as (keyof KcpCounters)[];

/** A network cohort's links this second (plan.network): what its conditions did to its clients' packets, both directions summed. */
export const NetworkCounters = z.object({
  /** Packets (datagrams; on the kernel path IP packets; above a stream whole messages) that met the cohort's conditions. */
  networkPackets: z.number().int().min(0).optional(),
  /** Dropped at random (lossPercent). */
  networkDropped: z.number().int().min(0).optional(),
  networkDuplicated: z.number().int().min(0).optional(),
  /** Sent ahead of the delay, overtaking packets still held (reorderPercent). */
  networkReordered: z.number().int().min(0).optional(),
  /** Dropped because more than 1 s waited for the client's link (bandwidthKbps). */
  networkOverflowed: z.number().int().min(0).optional(),
  /**
   * TCP and WebSocket cohorts on the kernel path: segments TCP itself sent again on the cohort's clients' sockets
   * (TCP_INFO's total_retrans, read each second: a socket closed within the second takes its last ones with it).
   * The server's own retransmissions, of what the network lost toward the clients, are on its sockets, not here.
   */
  tcpRetransmits: z.number().int().min(0).optional(),
});
export type NetworkCounters = z.infer<typeof NetworkCounters>;
export const NETWORK_COUNTER_NAMES = Object.keys(NetworkCounters.shape) as (keyof NetworkCounters)[];

/**
 * How a cohort's conditions reached its packets on this agent: "datagram" on the agent's datagram path (UDP, KCP:
 * each datagram); "kernel" below TCP, through the kernel's netfilter queue (each IP packet, so TCP's own timers see
 * them); "above-stream" as whole messages above TCP, where the agent could not reach below it: TCP saw the rig's
 * round trip, so its recovery was faster than on the network asked for (docs/networks.md).
 */
export const NetworkPath = z.enum(["datagram", "kernel", "above-stream"]);
export type NetworkPath = z.infer<typeof NetworkPath>;

/** Across agents, a cohort's path is the least faithful any of them used. */
export function worstNetworkPath(paths: readonly NetworkPath[]): NetworkPath | undefined {
  if (paths.includes("above-stream")) return "above-stream";
  return paths.includes("kernel") ? "kernel" : paths[0];
}

/** At most MAX_COHORTS entries, keyed by cohort name. */
export function cohortRecord<T extends z.ZodType>(entry: T) {
  return z
    .record(CohortName, entry)
    .refine((record) => Object.keys(record).length <= MAX_COHORTS, { message: `at most ${MAX_COHORTS} cohorts` });
}

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
  /** Sends that left more than 5 ms after their intended time (timer or event-loop lag). */
  lateSends: z.number().int().min(0).optional(),
  /** Intended sends not made because the previous message was still unanswered. */
  skippedSends: z.number().int().min(0).optional(),
  /**
   * Sends the load schedule called for in this interval (each connected client's rate over the time it was
   * connected), counted from the schedule itself and not from the timers that make the sends, so a send loop
   * that stalls shows as `messagesSent` (+ `skippedSends`) falling short of it. Absent for scenarios without a
   * send schedule (login-storm, echo-flood's closed loop).
   */
  scheduledSends: z.number().int().min(0).optional(),
  /** Messages still unanswered when their client stopped at the run's end: neither answered nor lost nor errors. */
  inFlightAtEnd: z.number().int().min(0).optional(),
  /** `errors` broken down: "timeout", "reset", "refused", "handshake", "protocol", "closed-by-server", … */
  errorsByKind: z.record(z.string(), z.number().int().min(0)).optional(),
  /** Connections closed, by cause: "agent" (we closed), "server" (clean close by the peer), "reset", "error". */
  closesByCause: z.record(z.string(), z.number().int().min(0)).optional(),
  /**
   * Reconnect attempts (scenario.reconnect), by what ended the client's last connection: "server", "reset",
   * "error", or "storm" (a reconnect storm's drop by the agent).
   */
  reconnectsByCause: z.record(z.string(), z.number().int().min(0)).optional(),
  /** Messages (UDP replies, broadcasts) known lost: a later sequence number arrived and this one never did. */
  lost: z.number().int().min(0).optional(),
  /** Messages received more than once (same sender and sequence). */
  duplicates: z.number().int().min(0).optional(),
  /** Messages that arrived after a later sequence number from the same sender. */
  outOfOrder: z.number().int().min(0).optional(),
  /** movement-sync: broadcasts the room should have delivered (updates sent × other players connected). */
  broadcastsExpected: z.number().int().min(0).optional(),
  /** movement-sync: broadcasts received; reach = broadcastsReceived ÷ broadcastsExpected. */
  broadcastsReceived: z.number().int().min(0).optional(),
  /** login-storm: logins answered / failed. */
  loginsSucceeded: z.number().int().min(0).optional(),
  loginsFailed: z.number().int().min(0).optional(),
  /** script: the script's named counters (ctx.count), by name. */
  scriptCounts: z.record(ScriptMetricKey, z.number().int().min(0)).optional(),
  /** A session's steps that failed this second, by step index and cause (each failure is in errorsByKind too). */
  sessionStepFailures: SessionStepFailures.optional(),
  ...KcpCounters.shape,
  ...NetworkCounters.shape,
});
export type SnapshotCounters = z.infer<typeof SnapshotCounters>;

/** The counters of a second in which nothing was counted, `connectionsOpen` connections still held. */
export function zeroCounters(connectionsOpen = 0): SnapshotCounters {
  return {
    connectionsOpen,
    connectionsOpened: 0,
    connectionsFailed: 0,
    connectionsClosed: 0,
    messagesSent: 0,
    messagesReceived: 0,
    bytesSent: 0,
    bytesReceived: 0,
    errors: 0,
  };
}

/** The load generator's own health, so a report can blame the agent rather than the server. */
export const AgentHealth = z.object({
  cpuPercent: z.number().min(0),
  eventLoopP99Ms: z.number().min(0),
  /**
   * The longest single hold of the event loop this second (ms): one stall, the process stopped or swapped out, that a
   * p99 over the second's hundred samples hides. Older agents leave it out.
   */
  eventLoopMaxMs: z.number().min(0).optional(),
  rssBytes: z.number().int().min(0),
  /** Open file descriptors across the agent's engine processes (sockets count), and the per-process limit. */
  openFds: z.number().int().min(0).optional(),
  fdLimit: z.number().int().min(0).optional(),
  /** Engine processes merged into this snapshot (one per core). cpuPercent is their sum (100 = one core). */
  engines: z.number().int().min(1).optional(),
  /** The host's CPU steal this second (hypervisor time taken from this VM), percent of all its CPU time. */
  stealPercent: z.number().min(0).max(100).optional(),
  /** True when the agent, not the server, was the limit this second; `saturatedReason` says why. */
  saturated: z.boolean().optional(),
  saturatedReason: z.string().max(200).optional(),
});
export type AgentHealth = z.infer<typeof AgentHealth>;

/** HDR histograms (microseconds), compressed and base64-encoded by hdr-histogram-js. */
export const SnapshotHistograms = z.object({
  rttUs: z.string(),
  /** Round trips measured from the intended send time (coordinated-omission corrected). */
  rttCorrectedUs: z.string().optional(),
  /** Connect (TCP + WebSocket handshake) times. */
  connectUs: z.string().optional(),
  /** login-storm: login request to answer. */
  loginUs: z.string().optional(),
  /** movement-sync: a sender's send to each room member's receipt (one clock: the room is on one agent). */
  broadcastUs: z.string().optional(),
  /** movement-sync / UDP: |arrival gap − send gap| between consecutive messages of one sender. */
  jitterUs: z.string().optional(),
  /** script: the script's named histograms (ctx.measure, microseconds), by name. */
  script: z.record(ScriptMetricKey, z.string()).optional(),
  /**
   * A session's steps that ended well this second, each timed by step index: an expect step from its start (the
   * send before it) to the reply it waited for, an http step from its request to the answer, a send step to its
   * send, a wait step to its end.
   */
  sessionSteps: z.record(SessionStepKey, z.string()).optional(),
});
export type SnapshotHistograms = z.infer<typeof SnapshotHistograms>;

/** One cohort's own part of a snapshot: its clients' figures, read exactly as the snapshot's own. */
export const CohortSnapshot = z.object({
  /** The cohort's clients running (a gauge). */
  clients: z.number().int().min(0),
  counters: SnapshotCounters,
  histograms: SnapshotHistograms,
  applied: NetworkPath,
});
export type CohortSnapshot = z.infer<typeof CohortSnapshot>;

/** Sent by an agent once per second during a run; ingest is idempotent on (run, agent, seq). */
export const MetricSnapshot = z.object({
  runId: z.string().uuid(),
  seq: z.number().int().min(0),
  /** Start of the one-second interval, epoch milliseconds in SERVER time (agent clock + measured offset; local clock when standalone). */
  intervalStart: z.number().int().min(0),
  intervalMs: z.number().int().min(1).max(60_000),
  clients: z.number().int().min(0),
  counters: SnapshotCounters,
  histograms: SnapshotHistograms,
  health: AgentHealth,
  /** step-up load: index of the step this second belongs to (0-based). */
  step: z.number().int().min(0).optional(),
  /** plan.network: each cohort's own figures, by cohort name (its clients are in the snapshot's own figures too). */
  cohorts: cohortRecord(CohortSnapshot).optional(),
  /** Errors seen for the first time (distinct kind, message and bytes), bounded per shard and kind (error-samples.ts, PROTOCOL.md §5.2). */
  errorSamples: z.array(ErrorSample).max(ERROR_SAMPLES_PER_SNAPSHOT).optional(),
  /** movement-sync: the shard's worst rooms since the run started and the spread over all its rooms (rooms.ts, PROTOCOL.md §5.3). */
  rooms: RoomsReport.optional(),
});
export type MetricSnapshot = z.infer<typeof MetricSnapshot>;

/**
 * A snapshot as the control plane stores it (db's snapshot rows) and the merge reads it (@throng/wire), the
 * standalone agent's too: its epoch second, its RTT histogram apart, the other histograms by their snapshot name
 * (a script's as an object under "script"). Counters and health are checked when merged.
 */
export interface StoredSnapshot {
  agentId: string;
  seq: number;
  second: number;
  intervalMs: number;
  clients: number;
  counters: unknown;
  rttHist: string;
  /** The other encoded histograms by their snapshot name (rttCorrectedUs, connectUs, ...). */
  histograms: Record<string, string>;
  step: number | null;
  health: unknown;
  /** Network cohorts' own figures (MetricSnapshot.cohorts), checked when merged; null or absent without cohorts. */
  cohorts?: unknown;
}

/** Percentiles of one latency histogram, in milliseconds; null when nothing was recorded. */
export const LatencyStats = z.object({
  count: z.number().int().min(0),
  p50Ms: z.number().nullable(),
  p90Ms: z.number().nullable(),
  p99Ms: z.number().nullable(),
  maxMs: z.number().nullable(),
});
export type LatencyStats = z.infer<typeof LatencyStats>;

/** One session step over a run: its time (the steps that ended well) and its failures by cause. */
export const SessionStepStats = LatencyStats.extend({
  failures: z.partialRecord(SessionStepFailure, z.number().int().min(0)),
});
export type SessionStepStats = z.infer<typeof SessionStepStats>;

/** The histograms besides rttUs, by the name the series and summaries use for them. */
export const LatencyName = z.enum(["rttCorrected", "connect", "login", "broadcast", "jitter"]);
export type LatencyName = z.infer<typeof LatencyName>;

/** One agent's health in one second, for the per-agent table and health charts. */
export const AgentHealthPoint = AgentHealth.extend({ agentId: z.string().uuid() });
export type AgentHealthPoint = z.infer<typeof AgentHealthPoint>;

/** Latencies and counters only some scenarios measure; shared by a second (SeriesPoint) and a run (RunSummary). */
export const ScenarioFigures = z.object({
  rttP90Ms: z.number().nullable().optional(),
  /** Other latencies (coordinated-omission corrected RTT, connect, login, broadcast, jitter). */
  latency: z.partialRecord(LatencyName, LatencyStats).optional(),
  lateSends: z.number().int().min(0).optional(),
  skippedSends: z.number().int().min(0).optional(),
  /** Sends the schedule called for (see SnapshotCounters.scheduledSends). */
  scheduledSends: z.number().int().min(0).optional(),
  inFlightAtEnd: z.number().int().min(0).optional(),
  lost: z.number().int().min(0).optional(),
  duplicates: z.number().int().min(0).optional(),
  outOfOrder: z.number().int().min(0).optional(),
  /** movement-sync: broadcasts received ÷ expected (null when none were expected). */
  broadcastReach: z.number().min(0).nullable().optional(),
  loginsSucceeded: z.number().int().min(0).optional(),
  loginsFailed: z.number().int().min(0).optional(),
  errorsByKind: z.record(z.string(), z.number().int().min(0)).optional(),
  /** Reconnect attempts by the cause of the drop (SnapshotCounters.reconnectsByCause). */
  reconnectsByCause: z.record(z.string(), z.number().int().min(0)).optional(),
  /** script: the script's named histograms (SnapshotHistograms.script) merged across agents, by name. */
  script: z.record(z.string(), LatencyStats).optional(),
  /** script: the script's named counters (SnapshotCounters.scriptCounts) summed, by name. */
  scriptCounts: z.record(z.string(), z.number().int().min(0)).optional(),
  /** KCP targets: the protocol's counters (SnapshotCounters' kcp*) summed. */
  ...KcpCounters.shape,
  /** A network cohort's figures: what its conditions did (SnapshotCounters' network*) summed. */
  ...NetworkCounters.shape,
});

/** One second of a run, merged across agents (histograms merged, never percentiles averaged). */
const SeriesPointFigures = z.object({
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
  ...ScenarioFigures.shape,
  closesByCause: z.record(z.string(), z.number().int().min(0)).optional(),
  /**
   * Each agent's own health this second; `saturated` marks the agent, not the server, as the limit. Joined from
   * the stored snapshots when the series is read; not in the stored roll-up or in live "point" messages.
   */
  agentHealth: z.array(AgentHealthPoint).optional(),
  /** step-up load: the step this second belongs to. */
  step: z.number().int().min(0).optional(),
});

/** One cohort's second, merged across agents: the same figures as the run's second, over the cohort's clients only. */
export const CohortPoint = SeriesPointFigures.omit({ agentHealth: true, step: true }).extend({ applied: NetworkPath });
export type CohortPoint = z.infer<typeof CohortPoint>;

export const SeriesPoint = SeriesPointFigures.extend({
  /** plan.network: each cohort's second, by cohort name, read exactly as the run's. */
  cohorts: cohortRecord(CohortPoint).optional(),
});
export type SeriesPoint = z.infer<typeof SeriesPoint>;

/** One second of the server under test, sampled from /proc by `throng-agent watch` on the server's host. */
export const ServerWatchSnapshot = z.object({
  /** Seconds since the watch started (0, 1, 2…). */
  seq: z.number().int().min(0),
  /** Start of the interval, epoch milliseconds (the watching host's clock). */
  intervalStart: z.number().int().min(0),
  intervalMs: z.number().int().min(1).max(60_000),
  pid: z.number().int().min(1),
  /** The process's CPU over the interval; 100 = one core. */
  cpuPercent: z.number().min(0),
  rssBytes: z.number().int().min(0),
  threads: z.number().int().min(0).optional(),
  openFds: z.number().int().min(0).optional(),
  /** The host's network, all interfaces including loopback, per second. */
  network: z.object({
    packetsInPerSec: z.number().min(0),
    packetsOutPerSec: z.number().min(0),
    bytesInPerSec: z.number().min(0),
    bytesOutPerSec: z.number().min(0),
  }),
});
export type ServerWatchSnapshot = z.infer<typeof ServerWatchSnapshot>;

/** A snapshot's identity `(run, agent, seq)`: ingest is idempotent on it (the database and core build the same key). */
export const snapshotKey = (runId: string, agentId: string, seq: number) => `${runId}:${agentId}:${seq}`;
