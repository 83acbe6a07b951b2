import { z } from "zod";
import { SEARCH_PHASES } from "./capacity-search";
import { PlanSpec } from "./plan";
import { ScriptSha256 } from "./script-bundle";
import { MetricSnapshot } from "./snapshot";
import { ServerSample } from "./server-watch";
import { SecretValues } from "./secrets";
import { SessionTrial, SessionTrialResult } from "./session-trial";

/** What an agent does in runs: generate load, or watch the server under test on its host (§11). */
export const AgentRole = z.enum(["load", "watch"]);
export type AgentRole = z.infer<typeof AgentRole>;

/** Version of the agent socket protocol (agent/PROTOCOL.md). A breaking change bumps it. */
export const AGENT_PROTOCOL_VERSION = 1;

/** Path on the API where agents connect (outbound from the rig). */
export const AGENT_GATEWAY_PATH = "/agent/v1/connect";

/**
 * Upgrade request header an enrolled agent sends, `<agentId>:<secret>`: during a connection flood the gateway keeps
 * slots for upgrades that prove a credential (PROTOCOL.md §2.8). The hello still carries the credential.
 */
export const AGENT_CREDENTIAL_HEADER = "x-throng-agent-credential";

/** Close codes the gateway uses; the reason string says what to do. */
export const AgentCloseCode = {
  normal: 1000,
  goingAway: 1001,
  handshakeRequired: 4000,
  invalidMessage: 4001,
  unauthenticated: 4003,
  versionUnsupported: 4006,
  heartbeatTimeout: 4008,
  replaced: 4009,
  /** Too many enrolment attempts from this address; the agent backs off and retries. */
  rateLimited: 4029,
  internal: 4011,
} as const;
export type AgentCloseCode = (typeof AgentCloseCode)[keyof typeof AgentCloseCode];

/** Every frame on the agent socket: JSON text, `{ v, type, id?, payload }`. */
export const Envelope = z.object({
  v: z.literal(AGENT_PROTOCOL_VERSION),
  type: z.string().min(1),
  id: z.string().optional(),
  payload: z.unknown(),
});
export type Envelope = z.infer<typeof Envelope>;

/** What the agent tells about its machine in `hello`. */
export const HostInfo = z.object({
  hostname: z.string().min(1).max(255),
  os: z.string().max(100),
  arch: z.string().max(50),
  cores: z.number().int().min(1),
  memoryBytes: z.number().int().min(0),
});
export type HostInfo = z.infer<typeof HostInfo>;

/**
 * What a load agent can hold (PROTOCOL.md §2.9): up to `maxEngines` engine processes (256, or what --engines fixes) of
 * `clientsPerEngine` connections each, its open-file limit less the descriptors an engine keeps for itself.
 */
export const AgentCapacity = z.object({
  openFileLimit: z.number().int().min(1),
  clientsPerEngine: z.number().int().min(0),
  maxEngines: z.number().int().min(1).max(256),
});
export type AgentCapacity = z.infer<typeof AgentCapacity>;

/** The most clients an agent of `capacity` holds in whole rooms of `unit`; Infinity when it did not say (an older agent). */
export function agentMaxClients(capacity: AgentCapacity | undefined, unit = 1): number {
  if (!capacity) return Infinity;
  const size = Math.max(1, unit);
  return capacity.maxEngines * Math.floor(capacity.clientsPerEngine / size) * size;
}

/**
 * What a load agent's owner lets it run (PROTOCOL.md §2.10): scripts (none, any, or only bundles with these SHA-256s:
 * `--allow-scripts`) and the targets it will load (`--allow-target` rules; empty: any the server assigns). The
 * control plane places no run on an agent that would refuse it.
 */
export const AgentCapabilities = z.object({
  scripts: z.union([
    z.literal("none"),
    z.literal("any"),
    z.object({
      sha256: z
        .array(z.string().regex(/^[0-9a-f]{64}$/))
        .min(1)
        .max(100),
    }),
  ]),
  allowTargets: z.array(z.string().min(1).max(300)).max(100),
});
export type AgentCapabilities = z.infer<typeof AgentCapabilities>;

/** First contact uses a one-time enrolment token; later contacts the credential it was exchanged for. */
export const AgentAuth = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("enrolment"), token: z.string().min(1) }),
  z.object({ kind: z.literal("credential"), agentId: z.string().uuid(), secret: z.string().min(1) }),
]);
export type AgentAuth = z.infer<typeof AgentAuth>;

/** agent → server, first frame: who I am and how I authenticate. */
export const Hello = z.object({
  agentVersion: z.string().min(1),
  protocolVersion: z.number().int(),
  auth: AgentAuth,
  host: HostInfo,
  labels: z.record(z.string(), z.string()).default({}),
  /** Omitted: "load". A "watch" agent only gets watch shards (§11). */
  role: AgentRole.optional(),
  /** A load agent's open-file limit and engines (§2.9); omitted by older agents, whose limit is then unknown. */
  capacity: AgentCapacity.optional(),
  /** What the owner lets it run (§2.10); omitted by older agents, which then refuse what they cannot run at the start. */
  capabilities: AgentCapabilities.optional(),
});
export type Hello = z.infer<typeof Hello>;

/** server → agent, answer to hello: the server sets the intervals; `credential` only after enrolment. */
export const Ready = z.object({
  agentId: z.string().uuid(),
  orgId: z.string(),
  credential: z.object({ agentId: z.string().uuid(), secret: z.string() }).optional(),
  heartbeatIntervalMs: z.number().int().min(100),
  flushIntervalMs: z.number().int().min(100),
  serverTime: z.number().int(),
  /** An agent cut off from the server for longer than this stops its load by itself: no orphan load. */
  orphanGraceMs: z.number().int().min(1000).optional(),
});
export type Ready = z.infer<typeof Ready>;

/**
 * Agent → server every heartbeatIntervalMs; the server answers at once with its own clock in `sentAt` and the
 * agent's in `echo`, so the agent can measure its clock offset from the round trip (NTP-style).
 */
export const Heartbeat = z.object({ sentAt: z.number().int(), echo: z.number().int().optional() });
export type Heartbeat = z.infer<typeof Heartbeat>;

/**
 * A level of an automatic capacity search (PROTOCOL.md §10): from `startAt` (epoch ms, server clock) the run's
 * clients are `clients` (the whole run's count; each agent holds its share), and its seconds count as `step`
 * for the plan's stepDurationSec. Agents hold the level after that until told the next one.
 */
export const SearchStep = z.object({
  runId: z.string().uuid(),
  step: z.number().int().min(0),
  clients: z.number().int().min(1),
  phase: z.enum(SEARCH_PHASES),
  startAt: z.number().int(),
});
export type SearchStep = z.infer<typeof SearchStep>;

/** server → agent: this agent's share of a run, to start at `startAt` (epoch ms, server clock). */
export const RunAssignment = z.object({
  runId: z.string().uuid(),
  shardIndex: z.number().int().min(0),
  shardCount: z.number().int().min(1),
  /** 0 for a watch shard. */
  clients: z.number().int().min(0),
  /**
   * Clients of the shards before this one (by shardIndex), and so the run-wide number ({{client}}) of this shard's
   * first client. A load shape's count is split by cumulative share, so the shards together hold exactly the plan's
   * count; absent counts as 0 (a lone shard).
   */
  clientsBefore: z.number().int().min(0).optional(),
  plan: PlanSpec,
  startAt: z.number().int(),
  /** An automatic search's current level, when it has moved past its first (a reconnecting agent resumes at it). */
  searchStep: SearchStep.omit({ runId: true }).optional(),
  /** Omitted: "load". "watch": sample the watched process once a second from startAt for the run's duration (§11). */
  role: AgentRole.optional(),
  /**
   * The values of the organisation secrets the plan names as {{secrets.NAME}}, and only those (§14): the gateway adds
   * them as the assignment leaves it for this agent's socket; they never travel through Redis or a job.
   */
  secrets: SecretValues.optional(),
});
export type RunAssignment = z.infer<typeof RunAssignment>;

/** server → agent: stop generating load for this run now. */
export const RunStop = z.object({ runId: z.string().uuid(), reason: z.string() });
export type RunStop = z.infer<typeof RunStop>;

/** server → agent: the snapshot with this seq is stored; the agent may drop it from its buffer. */
export const SnapshotAck = z.object({ runId: z.string().uuid(), seq: z.number().int().min(0) });
export type SnapshotAck = z.infer<typeof SnapshotAck>;

/** agent → server: a shard changed state. `finished` comes after the last snapshot was sent. */
export const ShardStatus = z.object({
  runId: z.string().uuid(),
  state: z.enum(["started", "finished", "failed"]),
  lastSeq: z.number().int().min(-1).optional(),
  error: z.string().max(2000).optional(),
});
export type ShardStatus = z.infer<typeof ShardStatus>;

/**
 * agent → server: send me the script bundle with this SHA-256 (§12). Sent for a script shard the agent's owner allows
 * and has not cached yet; answered by one `script-bundle` with the same sha256.
 */
export const ScriptFetch = z.object({ sha256: ScriptSha256 });
export type ScriptFetch = z.infer<typeof ScriptFetch>;

/**
 * server → agent: the answer to `script-fetch`, from the agent's own organisation only: the bundle's source (the
 * agent hashes it and refuses a mismatch) or why there is none.
 */
export const ScriptBundle = z.union([
  z.object({ sha256: ScriptSha256, source: z.string() }),
  z.object({ sha256: ScriptSha256, error: z.string().max(2000) }),
]);
export type ScriptBundle = z.infer<typeof ScriptBundle>;

/** Messages the agent sends, by envelope type. */
export const AgentToServer = {
  hello: Hello,
  heartbeat: Heartbeat,
  snapshot: MetricSnapshot,
  "server-sample": ServerSample,
  "shard-status": ShardStatus,
  "script-fetch": ScriptFetch,
  "session-trial-result": SessionTrialResult,
} as const;
export type AgentToServerType = keyof typeof AgentToServer;

/** Messages the server sends, by envelope type. */
export const ServerToAgent = {
  ready: Ready,
  heartbeat: Heartbeat,
  "run-assignment": RunAssignment,
  "run-stop": RunStop,
  "snapshot-ack": SnapshotAck,
  "search-step": SearchStep,
  "script-bundle": ScriptBundle,
  "session-trial": SessionTrial,
} as const;
export type ServerToAgentType = keyof typeof ServerToAgent;

/** Any one message of a catalogue: an envelope type with the payload its schema parses to. */
type CatalogMessage<C extends Record<string, z.ZodType>> = {
  [K in keyof C]: { type: K; payload: z.infer<C[K]> };
}[keyof C];
export type AgentToServerMessage = CatalogMessage<typeof AgentToServer>;
export type ServerToAgentMessage = CatalogMessage<typeof ServerToAgent>;

export type DecodeResult<M> = { ok: true; message: M } | { ok: false; reason: string };

function decode<C extends Record<string, z.ZodType>>(catalog: C, raw: string): DecodeResult<CatalogMessage<C>> {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false as const, reason: "frame is not JSON" };
  }
  const envelope = Envelope.safeParse(json);
  if (!envelope.success) {
    return { ok: false as const, reason: `bad envelope: expected { v: ${AGENT_PROTOCOL_VERSION}, type, payload }` };
  }
  const { type, payload } = envelope.data;
  const schema = catalog[type];
  if (!schema) return { ok: false as const, reason: `unknown message type "${type}"` };
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join(".") || "payload"}: ${issue.message}` : "invalid";
    return { ok: false as const, reason: `invalid ${type} (${where})` };
  }
  // The catalogue's schema for `type` parsed the payload, so the pair is one of C's messages.
  return { ok: true as const, message: { type, payload: parsed.data } as CatalogMessage<C> };
}

/** Server side: parse one frame from an agent. */
export function decodeAgentMessage(raw: string): DecodeResult<AgentToServerMessage> {
  return decode(AgentToServer, raw);
}

/** Agent side: parse one frame from the server. */
export function decodeServerMessage(raw: string): DecodeResult<ServerToAgentMessage> {
  return decode(ServerToAgent, raw);
}

/** Either side: one frame as JSON text. */
export function encodeMessage(message: AgentToServerMessage | ServerToAgentMessage, id?: string): string {
  return JSON.stringify({
    v: AGENT_PROTOCOL_VERSION,
    type: message.type,
    ...(id ? { id } : {}),
    payload: message.payload,
  });
}
