import { createServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import {
  AGENT_GATEWAY_PATH,
  decodeAgentMessage,
  encodeMessage,
  type AgentToServerMessage,
  type ServerToAgentMessage,
} from "@throng/protocol/agent";

/**
 * Test double for the API's agent gateway: a real `ws` server that lets a test play the
 * server side of agent/PROTOCOL.md frame by frame. Test-only; never bundled.
 */

const WAIT_TIMEOUT_MS = 15_000;

export interface GatewayConnection {
  readonly path: string;
  /** Every frame the agent sent on this socket, decoded and validated against the protocol. */
  readonly received: AgentToServerMessage[];
  /** Frames that failed decodeAgentMessage: the agent broke the contract. */
  readonly invalid: string[];
  /** The first message (already received or still to come) matching `predicate`. */
  waitFor<T extends AgentToServerMessage>(
    predicate: (message: AgentToServerMessage) => message is T,
    timeoutMs?: number,
  ): Promise<T>;
  waitFor(predicate: (message: AgentToServerMessage) => boolean, timeoutMs?: number): Promise<AgentToServerMessage>;
  /** Calls `listener` for every valid message from now on (e.g. to answer heartbeats). */
  onMessage(listener: (message: AgentToServerMessage) => void): void;
  send(message: ServerToAgentMessage): void;
  sendRaw(data: string | Buffer): void;
  close(code: number, reason: string): void;
  terminate(): void;
  /** Resolves with the close code and reason once the socket has closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
}

export interface FakeGateway {
  /** http://127.0.0.1:port, what `--server` takes. */
  readonly server: string;
  /** The next agent socket to connect (or one already connected and not yet taken). */
  nextConnection(timeoutMs?: number): Promise<GatewayConnection>;
  close(): Promise<void>;
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function wrap(socket: WebSocket, path: string): GatewayConnection {
  const received: AgentToServerMessage[] = [];
  const invalid: string[] = [];
  const waiters = new Set<() => void>();
  const listeners: Array<(message: AgentToServerMessage) => void> = [];
  socket.on("message", (data) => {
    const decoded = decodeAgentMessage(data.toString());
    if (decoded.ok) {
      received.push(decoded.message);
      for (const listener of listeners) listener(decoded.message);
    } else invalid.push(`${decoded.reason}: ${data.toString().slice(0, 200)}`);
    for (const wake of waiters) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() }));
  });

  const waitFor = (predicate: (message: AgentToServerMessage) => boolean, timeoutMs = WAIT_TIMEOUT_MS) => {
    const found = new Promise<AgentToServerMessage>((resolve) => {
      const check = () => {
        const match = received.find(predicate);
        if (!match) return;
        waiters.delete(check);
        resolve(match);
      };
      waiters.add(check);
      check();
    });
    return withTimeout(found, timeoutMs, `a matching message from the agent on ${path}`);
  };

  return {
    path,
    received,
    invalid,
    waitFor: waitFor as GatewayConnection["waitFor"],
    onMessage: (listener) => void listeners.push(listener),
    send: (message) => socket.send(encodeMessage(message)),
    sendRaw: (data) => socket.send(data),
    close: (code, reason) => socket.close(code, reason),
    terminate: () => socket.terminate(),
    closed,
  };
}

/** With `tls`, the gateway is served over https/wss, as an API behind a TLS-terminating proxy would be. */
export async function startFakeGateway(options: { tls?: { cert: Buffer; key: Buffer } } = {}): Promise<FakeGateway> {
  const notFound = (_request: unknown, response: { writeHead(code: number): { end(): void } }) =>
    response.writeHead(404).end();
  const http = options.tls ? createHttpsServer(options.tls, notFound) : createServer(notFound);
  const wss = new WebSocketServer({ server: http, path: AGENT_GATEWAY_PATH });
  const pending: GatewayConnection[] = [];
  const takers: Array<(connection: GatewayConnection) => void> = [];
  wss.on("connection", (socket, request) => {
    const connection = wrap(socket, request.url ?? "");
    const taker = takers.shift();
    if (taker) taker(connection);
    else pending.push(connection);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;

  return {
    server: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    nextConnection(timeoutMs = WAIT_TIMEOUT_MS) {
      const ready = pending.shift();
      if (ready) return Promise.resolve(ready);
      return withTimeout(
        new Promise<GatewayConnection>((resolve) => takers.push(resolve)),
        timeoutMs,
        "an agent connection",
      );
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
