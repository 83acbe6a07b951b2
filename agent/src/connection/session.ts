import WebSocket from "ws";
import {
  AGENT_CREDENTIAL_HEADER,
  AgentCloseCode,
  decodeServerMessage,
  encodeMessage,
  type AgentToServerMessage,
  type Hello,
  type Ready,
  type ServerToAgentMessage,
} from "@throng/protocol/agent";
import { createClockSync } from "./clock-sync";
import type { Logger } from "./logger";

/** How long the server has to answer hello with ready (PROTOCOL.md §2). */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Silence for this many heartbeat intervals means the link is dead (PROTOCOL.md §3). */
const MISSED_HEARTBEATS = 3;

export type ServerMessageAfterReady = Exclude<ServerToAgentMessage, { type: "ready" }>;

export interface Session {
  /** Sends one message; false when the socket is not open and ready. */
  send(message: AgentToServerMessage): boolean;
  close(code: number, reason: string): void;
}

export interface SessionEnd {
  code: number;
  reason: string;
  /** Whether the handshake completed on this socket. */
  ready: boolean;
  /** Why the socket failed, when it did (connection refused, handshake timeout, ...). */
  error?: string;
}

export interface SessionOptions {
  url: string;
  hello: Hello;
  log: Logger;
  handshakeTimeoutMs?: number;
  onReady(ready: Ready, session: Session): void;
  /** Server time minus local time: first from ready, then refined by each heartbeat echo (§2, §3). */
  onOffset(offsetMs: number): void;
  onMessage(message: ServerMessageAfterReady): void;
}

function localNow(): number {
  return performance.timeOrigin + performance.now();
}

/** One socket to the gateway: hello → ready, heartbeats, decoded frames in; ends on close. */
export function openSession(options: SessionOptions): { session: Session; ended: Promise<SessionEnd> } {
  const { log } = options;
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
  // An enrolled agent proves its credential at the upgrade too, so a gateway shedding a flood still lets it in (§2.8).
  const { auth } = options.hello;
  const headers =
    auth.kind === "credential" ? { [AGENT_CREDENTIAL_HEADER]: `${auth.agentId}:${auth.secret}` } : undefined;
  const ws = new WebSocket(options.url, { handshakeTimeout: handshakeTimeoutMs, perMessageDeflate: false, headers });
  let ready = false;
  const clock = createClockSync();
  let lastHeard = localNow();
  let error: string | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  const handshakeTimer = setTimeout(
    () => close(AgentCloseCode.handshakeRequired, "no ready within the handshake timeout"),
    handshakeTimeoutMs,
  );

  const session: Session = {
    send(message) {
      if (!ready || ws.readyState !== WebSocket.OPEN) return false;
      ws.send(encodeMessage(message));
      return true;
    },
    close,
  };

  function close(code: number, reason: string): void {
    if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    else if (ws.readyState === WebSocket.OPEN) ws.close(code, reason);
  }

  function startHeartbeat(intervalMs: number): void {
    heartbeat = setInterval(() => {
      // The gateway may not send heartbeats when idle; a WebSocket ping gets a pong from any peer.
      if (localNow() - lastHeard > MISSED_HEARTBEATS * intervalMs) {
        error = `no frame from the server for ${MISSED_HEARTBEATS} heartbeat intervals`;
        ws.terminate();
        return;
      }
      ws.ping();
      // Our own clock: the server echoes it back, which is what lets the offset be measured.
      session.send({ type: "heartbeat", payload: { sentAt: Math.round(localNow()) } });
    }, intervalMs);
  }

  function onFrame(text: string): void {
    const receivedAt = localNow();
    const decoded = decodeServerMessage(text);
    if (!decoded.ok) {
      // Ignored rather than fatal, so a newer server's extra frames cannot take an agent down.
      log.warn(`ignored a frame from the server: ${decoded.reason}`);
      return;
    }
    const message = decoded.message;
    if (!ready) {
      if (message.type !== "ready") {
        close(AgentCloseCode.handshakeRequired, `expected ready, got ${message.type}`);
        return;
      }
      ready = true;
      clearTimeout(handshakeTimer);
      options.onOffset(clock.fromReady(message.payload.serverTime, receivedAt));
      startHeartbeat(message.payload.heartbeatIntervalMs);
      options.onReady(message.payload, session);
      return;
    }
    if (message.type === "ready") {
      log.warn("ignored a second ready on the same connection");
      return;
    }
    if (message.type === "heartbeat" && message.payload.echo !== undefined) {
      options.onOffset(clock.fromHeartbeat(message.payload.sentAt, message.payload.echo, receivedAt));
    }
    options.onMessage(message);
  }

  ws.on("open", () => ws.send(encodeMessage({ type: "hello", payload: options.hello })));
  ws.on("message", (data, isBinary) => {
    lastHeard = localNow();
    if (isBinary) return log.warn("ignored a binary frame from the server");
    try {
      onFrame(data.toString());
    } catch (cause) {
      // A bug in one handler must not kill the process that holds every shard's buffered snapshots.
      log.error(`failed to handle a frame from the server: ${(cause as Error).stack ?? String(cause)}`);
    }
  });
  ws.on("pong", () => (lastHeard = localNow()));
  ws.on("error", (cause) => (error ??= cause.message));

  const ended = new Promise<SessionEnd>((resolve) => {
    ws.on("close", (code, reason) => {
      clearTimeout(handshakeTimer);
      clearInterval(heartbeat);
      resolve({ code, reason: reason.toString(), ready, ...(error ? { error } : {}) });
    });
  });
  return { session, ended };
}
