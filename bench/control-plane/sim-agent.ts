import WebSocket from "ws";
import {
  AGENT_PROTOCOL_VERSION,
  decodeServerMessage,
  encodeMessage,
  type AgentToServerMessage,
  type RunAssignment,
} from "@throng/protocol/agent";
import { THRONG_VERSION } from "@throng/protocol/version";
import type { SnapshotBodies } from "./snapshot-bodies";

/** What one simulated agent saw: every snapshot's send time (by second) and which were acknowledged. */
export interface SimAgentStats {
  sentAt: Map<number, number>;
  acked: Set<number>;
  lastAckAt: number;
}

/**
 * An agent that speaks the real protocol (hello → ready, heartbeats, one snapshot per second on the run's grid
 * numbered by seq, acks, shard-status) but generates no load: its snapshots are real-sized bodies from a pool.
 */
export function startSimAgent(options: {
  gatewayUrl: string;
  token: string;
  index: number;
  bodies: SnapshotBodies;
  labels: Record<string, string>;
}) {
  const ws = new WebSocket(options.gatewayUrl, {
    perMessageDeflate: false,
    // The gateway rate-limits enrolments per address; each simulated rig has its own, as real rigs would.
    headers: {
      "x-forwarded-for": `10.${100 + (options.index >> 16)}.${(options.index >> 8) & 255}.${options.index & 255}`,
    },
  });
  const runs = new Map<string, SimAgentStats>();
  const timers = new Set<NodeJS.Timeout>();
  let agentId = "";
  let heartbeat: NodeJS.Timeout | undefined;
  const send = (message: AgentToServerMessage) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(encodeMessage(message));
  };

  const ready = new Promise<string>((resolve, reject) => {
    ws.once("error", reject);
    ws.once("close", (code, reason) => reject(new Error(`agent ${options.index} closed ${code} ${reason.toString()}`)));
    ws.on("open", () =>
      send({
        type: "hello",
        payload: {
          agentVersion: THRONG_VERSION,
          protocolVersion: AGENT_PROTOCOL_VERSION,
          auth: { kind: "enrolment", token: options.token },
          host: { hostname: `sim-${options.index}`, os: "linux", arch: "x64", cores: 1, memoryBytes: 2 ** 30 },
          labels: options.labels,
        },
      }),
    );
    ws.on("message", (data) => {
      const decoded = decodeServerMessage(data.toString());
      if (!decoded.ok) return;
      const message = decoded.message;
      if (message.type === "ready") {
        agentId = message.payload.agentId;
        heartbeat = setInterval(
          () => send({ type: "heartbeat", payload: { sentAt: Date.now() } }),
          message.payload.heartbeatIntervalMs,
        );
        resolve(agentId);
      } else if (message.type === "run-assignment") {
        run(message.payload);
      } else if (message.type === "snapshot-ack") {
        const stats = runs.get(message.payload.runId);
        stats?.acked.add(message.payload.seq);
        if (stats) stats.lastAckAt = Date.now();
      }
    });
  });

  /** Seconds 0 … durationSec-1 of the shard, each sent at the end of its interval, then `finished`. */
  function run(assignment: RunAssignment) {
    if (runs.has(assignment.runId)) return;
    const stats: SimAgentStats = { sentAt: new Map(), acked: new Set(), lastAckAt: 0 };
    runs.set(assignment.runId, stats);
    const seconds = assignment.plan.load.durationSec;
    for (let seq = 0; seq <= seconds; seq++) {
      const intervalStart = assignment.startAt + seq * 1000;
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          if (seq === seconds)
            return send({
              type: "shard-status",
              payload: { runId: assignment.runId, state: "finished", lastSeq: seconds - 1 },
            });
          const frame = options.bodies.frame(assignment.clients, {
            runId: assignment.runId,
            seq,
            intervalStart,
            intervalMs: 1000,
          });
          stats.sentAt.set(Math.floor(intervalStart / 1000), Date.now());
          if (ws.readyState === WebSocket.OPEN) ws.send(frame);
        },
        Math.max(0, intervalStart + 1000 - Date.now()),
      );
      timers.add(timer);
    }
    send({ type: "shard-status", payload: { runId: assignment.runId, state: "started" } });
  }

  return {
    ready,
    runs,
    get id() {
      return agentId;
    },
    close() {
      clearInterval(heartbeat);
      for (const timer of timers) clearTimeout(timer);
      ws.removeAllListeners("close");
      ws.on("error", () => undefined);
      ws.close(1000, "bench done");
    },
  };
}
export type SimAgent = ReturnType<typeof startSimAgent>;
