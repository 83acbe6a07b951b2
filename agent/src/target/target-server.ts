import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";

export interface TargetOptions {
  host?: string;
  port?: number;
  /** Minimum time before each pong, to simulate a slower server. */
  delayMs?: number;
}

export interface RunningTarget {
  /** ws://host:port/ws; the server accepts any path. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The seq of a ping frame, or undefined for any other frame (which is echoed instead). */
function pingSeq(text: string): number | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    const message = JSON.parse(text) as { type?: unknown; seq?: unknown } | null;
    if (message?.type === "ping" && typeof message.seq === "number") return message.seq;
  } catch {
    // Not JSON: echoed like any other frame.
  }
  return undefined;
}

/** Runs `send` no earlier than `delayMs` after `receivedAt`, even if a timer fires a little early. */
function sendAfter(receivedAt: number, delayMs: number, timers: Set<NodeJS.Timeout>, send: () => void): void {
  const remaining = receivedAt + delayMs - performance.now();
  if (remaining <= 0) return send();
  const timer = setTimeout(() => {
    timers.delete(timer);
    sendAfter(receivedAt, delayMs, timers, send);
  }, Math.ceil(remaining));
  timers.add(timer);
}

function handleSocket(socket: WebSocket, delayMs: number, timers: Set<NodeJS.Timeout>): void {
  socket.on("error", () => socket.terminate());
  socket.on("message", (data, isBinary) => {
    const receivedAt = performance.now();
    const seq = isBinary ? undefined : pingSeq(data.toString());
    const reply = seq === undefined ? data : `{"type":"pong","seq":${seq}}`;
    const send = () => {
      if (socket.readyState === WebSocket.OPEN) socket.send(reply, { binary: seq === undefined && isBinary });
    };
    if (delayMs > 0) sendAfter(receivedAt, delayMs, timers, send);
    else send();
  });
}

/** The reference WebSocket server: answers each ping with a pong of the same seq, echoes anything else. */
export async function startTarget(options: TargetOptions = {}): Promise<RunningTarget> {
  const host = options.host ?? "127.0.0.1";
  const delayMs = Math.max(0, options.delayMs ?? 0);
  const timers = new Set<NodeJS.Timeout>();
  const http = createServer((_request, response) => {
    response.writeHead(426, { "content-type": "text/plain" }).end("this is a WebSocket server; connect to ws://host:port/ws\n");
  });
  const wss = new WebSocketServer({ server: http, perMessageDeflate: false });
  wss.on("connection", (socket) => handleSocket(socket, delayMs, timers));

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 7070, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `ws://${urlHost}:${port}/ws`,
    port,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
