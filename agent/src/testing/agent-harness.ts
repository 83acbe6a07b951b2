import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentToServerMessage, RunAssignment, ServerToAgentMessage, ShardStatus } from "@throng/protocol/agent";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { runAgent, type AgentExit, type AgentOptions } from "../connection/agent";
import type { Logger } from "../connection/logger";

/** Test harness: runs the real agent in-process against a FakeGateway, with a capturing logger. */

export const AGENT_ID = "5d1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b";
export const SECRET = "agent-secret-do-not-log";
export const TOKEN = "enrol-token-123";

export interface TestLogger extends Logger {
  readonly lines: string[];
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

export function testLogger(): TestLogger {
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  const push = (level: string) => (message: string) => {
    lines.push(`${level} ${message}`);
    for (const wake of waiters) wake();
  };
  return {
    lines,
    info: push("info"),
    warn: push("warn"),
    error: push("error"),
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no log line matching ${pattern} within ${timeoutMs} ms; got:\n${lines.join("\n")}`));
        }, timeoutMs);
        const check = () => {
          const line = lines.find((candidate) => pattern.test(candidate));
          if (!line) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(line);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

export async function tempConfigPath(): Promise<{ path: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "throng-agent-test-"));
  return { path: join(dir, "throng", "agent.json"), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface RunningAgent {
  exit: Promise<AgentExit>;
  log: TestLogger;
  stop(): void;
}

export function startAgent(options: Pick<AgentOptions, "server" | "configPath"> & Partial<AgentOptions>): RunningAgent {
  const controller = new AbortController();
  const log = testLogger();
  const exit = runAgent({
    token: TOKEN,
    labels: { region: "test" },
    log,
    signal: controller.signal,
    backoff: { baseMs: 10, capMs: 50 },
    ...options,
  });
  return { exit, log, stop: () => controller.abort() };
}

export function ready(
  overrides: {
    credential?: boolean;
    serverOffsetMs?: number;
    heartbeatIntervalMs?: number;
    orphanGraceMs?: number;
  } = {},
): ServerToAgentMessage {
  return {
    type: "ready",
    payload: {
      agentId: AGENT_ID,
      orgId: "org-test",
      ...(overrides.credential === false ? {} : { credential: { agentId: AGENT_ID, secret: SECRET } }),
      heartbeatIntervalMs: overrides.heartbeatIntervalMs ?? 5_000,
      flushIntervalMs: 1_000,
      serverTime: Date.now() + (overrides.serverOffsetMs ?? 0),
      ...(overrides.orphanGraceMs ? { orphanGraceMs: overrides.orphanGraceMs } : {}),
    },
  };
}

export function assignment(
  url: string,
  options: { runId?: string; durationSec: number; startAt: number; clients?: number },
): RunAssignment {
  const clients = options.clients ?? 5;
  return {
    runId: options.runId ?? "7c3e9a1b-2d4f-4a6b-8c0d-1e2f3a4b5c6d",
    shardIndex: 0,
    shardCount: 1,
    clients,
    startAt: options.startAt,
    plan: {
      name: "connection test",
      target: { protocol: "websocket", url },
      scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
      load: { clients, durationSec: options.durationSec, rampUpSec: 0 },
    },
  };
}

export const isSnapshot = (m: AgentToServerMessage): m is { type: "snapshot"; payload: MetricSnapshot } =>
  m.type === "snapshot";
export const isStatus =
  (state: ShardStatus["state"]) =>
  (m: AgentToServerMessage): m is { type: "shard-status"; payload: ShardStatus } =>
    m.type === "shard-status" && m.payload.state === state;
export const snapshotSeqs = (messages: AgentToServerMessage[]) => messages.filter(isSnapshot).map((m) => m.payload.seq);
