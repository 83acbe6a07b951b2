import { createSocket, type RemoteInfo } from "node:dgram";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TcpFraming } from "@throng/protocol/plan";
import { WebSocket, WebSocketServer } from "ws";
import { createFramer } from "../transports/framing";
import {
  listenStream,
  type AcceptedHandlers,
  type OnAcceptError,
  type StreamServer,
  type StreamSocket,
} from "../transports/stream-socket";
import { serveWebSocketFront, type ServerConnection } from "./websocket-upgrade";
import type { KcpModeName } from "@throng/protocol/kcp-modes";
import { serveKcp } from "./kcp-endpoint";
import { createTargetBehaviour, type BehaviourOptions, type Peer } from "./target-behaviour";

export interface TargetOptions extends BehaviourOptions {
  host?: string;
  /** WebSocket (and /stats HTTP) port; 0 picks a free one. */
  port?: number;
  /** Also serve TCP with this framing (port 0 picks a free one). */
  tcp?: { port: number; framing: TcpFraming };
  /** Also serve UDP (port 0 picks a free one). */
  udp?: { port: number };
  /** Also serve KCP, message mode, with a kcptun mode's tuning (default fast); port 0 picks a free one. */
  kcp?: { port: number; mode?: KcpModeName };
  /** Serve wss:// (and https:// /stats) with this certificate and key, PEM. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Refuse connections beyond this many open ones (WebSocket: HTTP 503; TCP: reset). */
  maxClients?: number;
  /** Where the target says what goes wrong while it serves (out of file descriptors); console.warn by default. */
  warn?: (message: string) => void;
  /** Listen with SO_REUSEPORT, one of several processes on the port (target-group.ts; the native path only). */
  reusePort?: boolean;
  /** What GET /stats answers when this process is one of several: the whole group's sum (target-group.ts). */
  groupStats?: () => Promise<TargetStats>;
}

export interface TargetStats {
  clients: number;
  /** Connections accepted since start (WebSocket + TCP): a neutral count of connections/s for any load tool. */
  accepted: number;
  /** Messages received since start: a neutral count of messages/s for any load tool (each gets one reply). */
  messages: number;
  /** Summed over its processes (100 = one core). */
  cpuPercent: number;
  /** Summed over its processes: Node's own code pages count once per process here. */
  rssBytes: number;
  /** Proportional set size summed over its processes (/proc/self/smaps_rollup: shared pages split between them); Linux only. */
  pssBytes?: number;
  /** Processes serving (--processes). */
  processes: number;
}

export interface RunningTarget {
  /** ws://host:port/ws (wss:// with `tls`); the server accepts any path. */
  url: string;
  port: number;
  tcpPort?: number;
  udpPort?: number;
  kcpPort?: number;
  /** This process's CPU (since the previous call) and memory. */
  stats(): TargetStats;
  /** GET /stats: the figures summed over every process of the target (this one's alone with one process). */
  allStats(): Promise<TargetStats>;
  close(): Promise<void>;
}

/**
 * Connections waiting to be accepted. Node's default (511) overflows in a login storm or a fast ramp: the kernel
 * drops the SYNs, clients retry after 1 s and 3 s, and connects time out. Linux caps it at net.core.somaxconn.
 */
const LISTEN_BACKLOG = 65_535;

function listen(
  server: {
    listen(options: { port: number; host: string; backlog: number }, cb: () => void): unknown;
    once(e: string, f: (e: Error) => void): unknown;
    off(e: string, f: (e: Error) => void): unknown;
  },
  port: number,
  host: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Reading RSS opens /proc/self/stat: a target out of descriptors answers with its last reading instead of throwing. */
function memoryMeter() {
  let rssBytes = 0;
  return (): Pick<TargetStats, "rssBytes" | "pssBytes"> => {
    try {
      rssBytes = process.memoryUsage.rss();
    } catch {
      // EMFILE: keep the last reading.
    }
    return { rssBytes, ...(pssOf() ?? {}) };
  };
}

/** This process's proportional set size (Linux), or undefined. */
function pssOf(): { pssBytes: number } | undefined {
  try {
    const kb = /^Pss:\s+(\d+) kB/m.exec(readFileSync("/proc/self/smaps_rollup", "utf8"))?.[1];
    return kb ? { pssBytes: Number(kb) * 1024 } : undefined;
  } catch {
    return undefined;
  }
}

function cpuMeter() {
  let lastCpu = process.cpuUsage();
  let lastAt = performance.now();
  return () => {
    const cpu = process.cpuUsage(lastCpu);
    const now = performance.now();
    const percent = ((cpu.user + cpu.system) / 1000 / Math.max(1, now - lastAt)) * 100;
    lastCpu = process.cpuUsage();
    lastAt = now;
    return Math.round(percent * 10) / 10;
  };
}

function webSocketPeer(socket: WebSocket): Peer & { binary: boolean } {
  const peer = {
    rooms: new Set<number>(),
    binary: false,
    send(data: Buffer | string) {
      if (socket.readyState === WebSocket.OPEN) socket.send(data, { binary: typeof data !== "string" && peer.binary });
    },
  };
  return peer;
}

/** Accepted connections (TCP and ws://, before and after the upgrade), closed with the target. */
type OpenSockets = Set<StreamSocket>;

/** Listens on the stream path (native when loaded); every accepted socket is tracked until it closes. */
async function listenTracked(
  host: string,
  port: number,
  reusePort: boolean,
  sockets: OpenSockets,
  serve: (socket: StreamSocket) => AcceptedHandlers,
  onAcceptError: OnAcceptError,
): Promise<StreamServer> {
  return listenStream(
    { host, port, backlog: LISTEN_BACKLOG, ...(reusePort ? { reusePort } : {}) },
    (socket) => {
      sockets.add(socket);
      const handlers = serve(socket);
      return {
        onData: handlers.onData,
        onClose(error) {
          sockets.delete(socket);
          handlers.onClose(error);
        },
      };
    },
    onAcceptError,
  );
}

/** How long the target waits before it says again that it cannot accept. */
const ACCEPT_WARNING_EVERY_MS = 10_000;

/** Says on `warn` that accepting fails for want of file descriptors: once, then at most every 10 s while it lasts. */
function acceptWarner(warn: (message: string) => void, counts: { open: number }): OnAcceptError {
  let lastAt = -Infinity;
  return (error) => {
    const now = performance.now();
    if (now - lastAt < ACCEPT_WARNING_EVERY_MS) return;
    lastAt = now;
    warn(
      `target: cannot accept connections: ${error.code ?? error.message} (out of file descriptors, ${counts.open} clients open); ` +
        "raise the open-file limit (ulimit -n) or set --max-clients below it. Still trying.",
    );
  };
}

function serveTcp(
  options: TargetOptions,
  host: string,
  { behaviour, counts, onAcceptError }: Shared,
  sockets: OpenSockets,
) {
  const tcp = options.tcp!;
  return listenTracked(
    host,
    tcp.port,
    options.reusePort === true,
    sockets,
    (socket) => {
      if (options.maxClients !== undefined && counts.open >= options.maxClients) {
        socket.reset();
        return { onData() {}, onClose() {} };
      }
      counts.open += 1;
      counts.accepted += 1;
      const framer = createFramer(tcp.framing);
      const peer: Peer = {
        rooms: new Set(),
        send: (data) =>
          void (socket.destroyed || socket.write(framer.encode(typeof data === "string" ? Buffer.from(data) : data))),
      };
      return {
        onData(chunk) {
          try {
            framer.push(chunk, (message) => behaviour.handle(peer, message));
          } catch {
            socket.destroy();
          }
        },
        onClose() {
          counts.open -= 1;
          behaviour.leave(peer);
        },
      };
    },
    onAcceptError,
  );
}

async function serveUdp(options: TargetOptions, host: string, behaviour: Behaviour) {
  const socket = createSocket({ type: host.includes(":") ? "udp6" : "udp4" });
  const peers = new Map<string, Peer>();
  socket.on("message", (message, remote: RemoteInfo) => {
    const key = `${remote.address}:${remote.port}`;
    let peer = peers.get(key);
    if (!peer) {
      peer = { rooms: new Set(), send: (data) => socket.send(data, remote.port, remote.address) };
      peers.set(key, peer);
    }
    behaviour.handle(peer, message);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(options.udp!.port, host, () => resolve());
  });
  return { port: socket.address().port, close: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
}

type Behaviour = ReturnType<typeof createTargetBehaviour>;
interface Endpoint {
  port: number;
  close(): Promise<void>;
}
interface Shared {
  behaviour: Behaviour;
  counts: { open: number; accepted: number };
  atLimit(): boolean;
  stats(): TargetStats;
  allStats(): Promise<TargetStats>;
  onAcceptError: OnAcceptError;
}

/** wss:// keeps node:https and the ws library (TLS sockets are Node's); ws:// runs on serveWebSocketFront. */
async function serveWss(
  options: TargetOptions,
  tls: NonNullable<TargetOptions["tls"]>,
  host: string,
  { behaviour, counts, atLimit, stats, onAcceptError }: Shared,
): Promise<Endpoint> {
  const answer = (request: IncomingMessage, response: ServerResponse) => {
    if (request.url === "/stats")
      return void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(stats()));
    response
      .writeHead(426, { "content-type": "text/plain" })
      .end("this is a WebSocket server; connect to wss://host:port/ws\n");
  };
  const https = createHttpsServer({ cert: tls.cert, key: tls.key }, answer);
  const wss = new WebSocketServer({
    server: https,
    perMessageDeflate: false,
    verifyClient: (_info, done) => (atLimit() ? done(false, 503, "client limit reached") : done(true)),
  });
  wss.on("connection", (socket) => {
    counts.open += 1;
    counts.accepted += 1;
    const peer = webSocketPeer(socket);
    socket.on("error", () => socket.terminate());
    socket.on("message", (data, isBinary) => {
      peer.binary = isBinary;
      behaviour.handle(peer, Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer));
    });
    socket.on("close", () => {
      counts.open -= 1;
      behaviour.leave(peer);
    });
  });
  await listen(https, options.port ?? 7070, host);
  // The ws library passes the server's errors on (a failed accept once listening): unhandled, they would crash.
  wss.on("error", onAcceptError);
  return {
    port: (https.address() as AddressInfo).port,
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      https.closeAllConnections();
      await new Promise<void>((resolve) => https.close(() => resolve()));
    },
  };
}

async function serveWs(
  options: TargetOptions,
  host: string,
  { behaviour, counts, atLimit, allStats, onAcceptError }: Shared,
  sockets: OpenSockets,
): Promise<Endpoint> {
  const server = await listenTracked(
    host,
    options.port ?? 7070,
    options.reusePort === true,
    sockets,
    (socket) =>
      serveWebSocketFront(socket, {
        atLimit,
        statsJson: async () => JSON.stringify(await allStats()),
        open(connection: ServerConnection) {
          counts.open += 1;
          counts.accepted += 1;
          const peer = {
            rooms: new Set<number>(),
            binary: false,
            send: (data: Buffer | string) => void connection.send(data, peer.binary),
          };
          return {
            onMessage(data, binary) {
              peer.binary = binary;
              behaviour.handle(peer, data);
            },
            onClose() {
              counts.open -= 1;
              behaviour.leave(peer);
            },
          };
        },
      }),
    onAcceptError,
  );
  return { port: server.port, close: async () => server.close() };
}

/**
 * The reference target: WebSocket (always), TCP, UDP and KCP (when asked) endpoints that answer pings with pongs,
 * logins with login-ok, broadcast room moves, stall on demand and echo anything else. ws:// and TCP take the
 * native I/O path when it is loaded (THRONG_IO), as the agent's connections do.
 */
export async function startTarget(options: TargetOptions = {}): Promise<RunningTarget> {
  const host = options.host ?? "127.0.0.1";
  const behaviour = createTargetBehaviour(options);
  const counts = { open: 0, accepted: 0 };
  const cpu = cpuMeter();
  const memory = memoryMeter();
  const stats = (): TargetStats => ({
    clients: counts.open,
    accepted: counts.accepted,
    messages: behaviour.messages(),
    cpuPercent: cpu(),
    ...memory(),
    processes: 1,
  });
  const allStats = options.groupStats ?? (async () => stats());
  const shared: Shared = {
    behaviour,
    counts,
    stats,
    allStats,
    atLimit: () => options.maxClients !== undefined && counts.open >= options.maxClients,
    onAcceptError: acceptWarner(options.warn ?? ((message) => console.warn(message)), counts),
  };
  const sockets: OpenSockets = new Set();
  const web = options.tls
    ? await serveWss(options, options.tls, host, shared)
    : await serveWs(options, host, shared, sockets);
  const tcp = options.tcp ? await serveTcp(options, host, shared, sockets) : undefined;
  const udp = options.udp ? await serveUdp(options, host, behaviour) : undefined;
  const kcp = options.kcp ? await serveKcp(options.kcp.port, host, behaviour, options.kcp.mode) : undefined;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `${options.tls ? "wss" : "ws"}://${urlHost}:${web.port}/ws`,
    port: web.port,
    ...(tcp ? { tcpPort: tcp.port } : {}),
    ...(udp ? { udpPort: udp.port } : {}),
    ...(kcp ? { kcpPort: kcp.port } : {}),
    stats,
    allStats,
    async close() {
      behaviour.close();
      await web.close();
      tcp?.close();
      for (const socket of sockets) socket.destroy();
      await udp?.close();
      await kcp?.close();
    },
  };
}
