import {
  AGENT_PROTOCOL_VERSION,
  AgentCloseCode,
  type AgentCapabilities,
  type AgentCapacity,
  type AgentRole,
  type HostInfo,
  type Ready,
  type RunAssignment,
} from "@throng/protocol/agent";
import { ThrongError } from "@throng/protocol/errors";
import { THRONG_VERSION } from "@throng/protocol/version";
import { offsetClock, sleep } from "../engine/clock";
import { runSessionTrial } from "../engine/session-trial";
import { runShard as defaultRunShard, type RunShardOptions, type ShardResult } from "../engine/run-shard";
import { ioPathNote } from "../transports/native-io";
import { createAuthChoice } from "./auth";
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from "./backoff";
import { readCredential, writeCredential, type StoredCredential } from "./credential-file";
import { hostInfo } from "./host-info";
import type { Logger } from "./logger";
import { gatewayUrl, normaliseServer } from "./server-url";
import { openSession, type ServerMessageAfterReady, type Session, type SessionEnd } from "./session";
import { openMeasurementBuffer } from "./measurement-buffer";
import { createScriptFetcher, type ScriptFetcher } from "./script-fetch";
import { createTrialRunner, type RunTrial } from "./trials";
import { createShardManager, type ShardManager } from "./shards";

/**
 * How the connected agent runs a shard: the engine's options plus `fetchScript`, which asks the server for a script
 * bundle over this connection (PROTOCOL.md §12; the caller checks the hash).
 */
export type AgentRunShard = (
  assignment: RunAssignment,
  options: RunShardOptions & { fetchScript(sha256: string): Promise<string> },
) => Promise<ShardResult>;

export interface AgentOptions {
  /** The API's http(s) address, as shown in the dashboard's install command. */
  server: string;
  /** One-time enrolment token; optional once a credential for this server is stored. */
  token?: string;
  configPath: string;
  labels: Record<string, string>;
  /** "watch": a watcher of the server under test, given watch shards only (PROTOCOL.md §11); default "load". */
  role?: AgentRole;
  log: Logger;
  /** Aborting (SIGINT/SIGTERM) flushes running shards and closes with 1000. */
  signal: AbortSignal;
  host?: HostInfo;
  /** A load agent's open-file limit and engines, so the server never gives it more clients than it holds (§2.9). */
  capacity?: AgentCapacity;
  /** What its owner lets it run (scripts, --allow-target), said in the hello so the server places no run it would refuse. */
  capabilities?: AgentCapabilities;
  backoff?: BackoffOptions;
  handshakeTimeoutMs?: number;
  runShard?: AgentRunShard;
  bufferCapacity?: number;
  /** Runs a session trial's one client (PROTOCOL.md §13); `connect` passes one held to its --allow-target list. */
  runTrial?: RunTrial;
}

/** How `connect` ended: stopped by a signal, or refused by the server for good. */
export type AgentExit =
  | { kind: "stopped" }
  | {
      kind: "fatal";
      closeCode: typeof AgentCloseCode.unauthenticated | typeof AgentCloseCode.versionUnsupported;
      reason: string;
    };

const isFatal = (
  code: number,
): code is typeof AgentCloseCode.unauthenticated | typeof AgentCloseCode.versionUnsupported =>
  code === AgentCloseCode.unauthenticated || code === AgentCloseCode.versionUnsupported;

function describeEnd(end: SessionEnd): string {
  return `code ${end.code}: ${end.reason || end.error || "no reason given"}`;
}

/** Connects to the gateway and stays connected (reconnecting with backoff) until stopped or refused. */
export async function runAgent(options: AgentOptions): Promise<AgentExit> {
  const { log, signal } = options;
  const server = normaliseServer(options.server);
  const credential = await readCredential(options.configPath, server);
  if (!credential && !options.token) {
    throw new ThrongError(
      "validation_failed",
      `no stored credential for ${server} in ${options.configPath}; pass --token <enrolment token> (create one under Agents in the dashboard)`,
    );
  }
  const auth = createAuthChoice(credential, options.token);
  log.info(ioPathNote());
  let offsetMs = 0;
  let current: Session | undefined;
  const orphan = createOrphanTimer(log);
  const disk = await openMeasurementBuffer(options.configPath, server, log);
  const scripts = createScriptFetcher((message) => current?.send(message) ?? false);
  const runShard = options.runShard ?? defaultRunShard;
  const shards = createShardManager({
    runShard: (assignment, shardOptions) =>
      runShard(assignment, { ...shardOptions, fetchScript: (sha256) => scripts.fetch(sha256) }),
    clock: () => offsetClock(offsetMs),
    log,
    disk: disk.buffer,
    recovered: disk.recovered,
    ...(options.bufferCapacity ? { bufferCapacity: options.bufferCapacity } : {}),
  });
  const trials = createTrialRunner(
    (message) => current?.send(message) ?? false,
    options.runTrial ?? ((plan, secrets) => runSessionTrial(plan, secrets ? { secrets } : {})),
    log,
  );
  const onAbort = () => void shards.shutdown().then(() => current?.close(AgentCloseCode.normal, "agent shutting down"));
  signal.addEventListener("abort", onAbort, { once: true });

  const onReady = (ready: Ready, session: Session) => {
    orphan.connected(ready.orphanGraceMs);
    if (ready.credential) {
      auth.store(ready.credential);
      void saveCredential(options, server, ready.credential);
    }
    log.info(`connected to ${server} as agent ${ready.agentId}`);
    shards.attach((message) => session.send(message));
  };

  try {
    for (let attempt = 0; !signal.aborted; ) {
      const hello = {
        agentVersion: THRONG_VERSION,
        protocolVersion: AGENT_PROTOCOL_VERSION,
        auth: auth.next(),
        host: options.host ?? hostInfo(),
        labels: options.labels,
        ...(options.role ? { role: options.role } : {}),
        ...(options.capacity ? { capacity: options.capacity } : {}),
        ...(options.capabilities ? { capabilities: options.capabilities } : {}),
      };
      const { session, ended } = openSession({
        url: gatewayUrl(server),
        hello,
        log,
        ...(options.handshakeTimeoutMs ? { handshakeTimeoutMs: options.handshakeTimeoutMs } : {}),
        onReady,
        onOffset: (offset) => (offsetMs = offset),
        onMessage: (message) =>
          message.type === "session-trial" ? trials.run(message.payload) : dispatch(shards, scripts, message),
      });
      current = session;
      if (signal.aborted) session.close(AgentCloseCode.normal, "agent shutting down");
      const end = await ended;
      current = undefined;
      shards.detach();
      if (signal.aborted) break;
      orphan.disconnected(shards);

      if (end.code === AgentCloseCode.unauthenticated && auth.fallBackToToken(hello.auth)) {
        log.warn(`the stored credential for ${server} was rejected (${end.reason}); enrolling with the token instead`);
        continue;
      }
      if (isFatal(end.code))
        return { kind: "fatal", closeCode: end.code, reason: end.reason || "refused by the server" };
      if (end.ready) attempt = 0;
      const delay = backoffDelay(attempt, options.backoff ?? DEFAULT_BACKOFF);
      attempt += 1;
      log.warn(`disconnected from ${server} (${describeEnd(end)}); reconnecting in ${(delay / 1000).toFixed(1)} s`);
      await sleep(delay, signal);
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    orphan.connected(undefined);
    await shards.shutdown();
    await disk.buffer.close();
  }
  return { kind: "stopped" };
}

/**
 * No orphan load: once cut off from the server for longer than ready.orphanGraceMs, running shards
 * stop by themselves (their final snapshots and `failed` statuses wait for the next connection).
 */
function createOrphanTimer(log: Logger) {
  let graceMs: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  return {
    connected(orphanGraceMs: number | undefined) {
      clearTimeout(timer);
      timer = undefined;
      graceMs = orphanGraceMs;
    },
    disconnected(shards: ShardManager) {
      if (graceMs === undefined || timer || !shards.running()) return;
      const seconds = Math.round(graceMs / 1000);
      log.warn(`running shards stop in ${seconds} s unless the server is reached again`);
      timer = setTimeout(() => shards.abandonAll(`no contact with the server for ${seconds} s`), graceMs);
    },
  };
}

function dispatch(shards: ShardManager, scripts: ScriptFetcher, message: ServerMessageAfterReady): void {
  switch (message.type) {
    case "run-assignment":
      shards.assign(message.payload);
      return;
    case "run-stop":
      shards.stop(message.payload.runId, message.payload.reason);
      return;
    case "snapshot-ack":
      shards.ack(message.payload.runId, message.payload.seq);
      return;
    case "search-step":
      shards.searchStep(message.payload);
      return;
    case "script-bundle":
      scripts.receive(message.payload);
      return;
    case "heartbeat":
      return; // liveness is tracked by the session
    case "session-trial":
      return; // run by runAgent's trials
  }
}

async function saveCredential(options: AgentOptions, server: string, credential: StoredCredential): Promise<void> {
  try {
    await writeCredential(options.configPath, server, credential);
    options.log.info(`saved the agent credential to ${options.configPath}`);
  } catch (error) {
    // The token is spent; without the file the next start cannot authenticate, so say so loudly.
    options.log.error(
      `could not save the agent credential to ${options.configPath}: ${(error as Error).message}. ` +
        `This process stays connected, but after a restart you will need a new enrolment token; pass --config <writable path>.`,
    );
  }
}
