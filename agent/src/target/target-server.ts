import { createSocket, type RemoteInfo } from "node:dgram";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createTcpServer, type AddressInfo, type Socket } from "node:net";
import type { TcpFraming } from "@throng/protocol/plan";
import { WebSocket, WebSocketServer } from "ws";
import type { Duplex } from "node:stream";
import { createFramer } from "../transports/framing";
import { acceptUpgrade, refuseUpgrade, type ServerConnection } from "./websocket-upgrade";
import { createTargetBehaviour, type BehaviourOptions, type Peer } from "./target-behaviour";

export interface TargetOptions extends BehaviourOptions {
  host?: string;
  /** WebSocket (and /stats HTTP) port; 0 picks a free one. */
  port?: number;
  /** Also serve TCP with this framing (port 0 picks a free one). */
  tcp?: { port: number; framing: TcpFraming };
  /** Also serve UDP (port 0 picks a free one). */
  udp?: { port: number };
  /** Serve wss:// (and https:// /stats) with this certificate and key, PEM. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Refuse connections beyond this many open ones (WebSocket: HTTP 503; TCP: reset). */
  maxClients?: number;
}

export interface TargetStats {
  clients: number;
  /** Connections accepted since start (WebSocket + TCP): a neutral count of connections/s for any load tool. */
  accepted: number;
  /** Messages received since start: a neutral count of messages/s for any load tool (each gets one reply). */
  messages: number;
  cpuPercent: number;
  rssBytes: number;
}

export interface RunningTarget {
  /** ws://host:port/ws (wss:// with `tls`); the server accepts any path. */
  url: string;
  port: number;
  tcpPort?: number;
  udpPort?: number;
  /** The target's own CPU (since the previous call) and memory. */
  stats(): TargetStats;
  close(): Promise<void>;
}

/**
 * Connections waiting to be accepted. Node's default (511) overflows in a login storm or a fast ramp: the kernel
 * drops the SYNs, clients retry after 1 s and 3 s, and connects time out. Linux caps it at net.core.somaxconn.
 */
const LISTEN_BACKLOG = 65_535;

function listen(server: { listen(options: { port: number; host: string; backlog: number }, cb: () => void): unknown; once(e: string, f: (e: Error) => void): unknown; off(e: string, f: (e: Error) => void): unknown }, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off("error", reject);
      resolve();
    });
  });
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

async function serveTcp(options: TargetOptions, host: string, behaviour: ReturnType<typeof createTargetBehaviour>, counts: { open: number; accepted: number }) {
  const tcp = options.tcp!;
  const sockets = new Set<Socket>();
  const server = createTcpServer({ noDelay: true }, (socket) => {
    if (options.maxClients !== undefined && counts.open >= options.maxClients) return void socket.resetAndDestroy();
    counts.open += 1;
    counts.accepted += 1;
    sockets.add(socket);
    const framer = createFramer(tcp.framing);
    const peer: Peer = { rooms: new Set(), send: (data) => void (socket.writable && socket.write(framer.encode(typeof data === "string" ? Buffer.from(data) : data))) };
    socket.on("data", (chunk) => {
      try {
        framer.push(chunk, (message) => behaviour.handle(peer, message));
      } catch {
        socket.destroy();
      }
    });
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      counts.open -= 1;
      sockets.delete(socket);
      behaviour.leave(peer);
    });
  });
  await listen(server, tcp.port, host);
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function serveUdp(options: TargetOptions, host: string, behaviour: ReturnType<typeof createTargetBehaviour>) {
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

/**
 * The reference target: WebSocket (always), TCP and UDP (when asked) endpoints that answer pings with pongs,
 * logins with login-ok, broadcast room moves, stall on demand and echo anything else.
 */
export async function startTarget(options: TargetOptions = {}): Promise<RunningTarget> {
  const host = options.host ?? "127.0.0.1";
  const behaviour = createTargetBehaviour(options);
  const counts = { open: 0, accepted: 0 };
  const cpu = cpuMeter();
  const stats = (): TargetStats => ({ clients: counts.open, accepted: counts.accepted, messages: behaviour.messages(), cpuPercent: cpu(), rssBytes: process.memoryUsage.rss() });
  const scheme = options.tls ? "wss" : "ws";
  const answer = (request: IncomingMessage, response: ServerResponse) => {
    if (request.url === "/stats") return void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(stats()));
    response.writeHead(426, { "content-type": "text/plain" }).end(`this is a WebSocket server; connect to ${scheme}://host:port/ws\n`);
  };
  const http = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, answer) : createServer(answer);
  const atLimit = () => options.maxClients !== undefined && counts.open >= options.maxClients;
  // wss:// keeps the ws library (TLS sockets); ws:// runs on the target's own upgrade and frame code.
  const wss = options.tls
    ? new WebSocketServer({ server: http, perMessageDeflate: false, verifyClient: (_info, done) => (atLimit() ? done(false, 503, "client limit reached") : done(true)) })
    : undefined;
  wss?.on("connection", (socket) => {
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
  const leanConnections = new Set<ServerConnection>();
  if (!wss) {
    http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (atLimit()) return refuseUpgrade(socket, 503, "client limit reached");
      const peer = { rooms: new Set<number>(), binary: false, send: (data: Buffer | string) => void connection?.send(data, peer.binary) };
      const connection = acceptUpgrade(request, socket, head, {
        onMessage(data, binary) {
          peer.binary = binary;
          behaviour.handle(peer, data);
        },
        onClose() {
          counts.open -= 1;
          leanConnections.delete(connection!);
          behaviour.leave(peer);
        },
      });
      if (!connection) return;
      counts.open += 1;
      counts.accepted += 1;
      leanConnections.add(connection);
    });
  }
  await listen(http, options.port ?? 7070, host);
  const tcp = options.tcp ? await serveTcp(options, host, behaviour, counts) : undefined;
  const udp = options.udp ? await serveUdp(options, host, behaviour) : undefined;
  const port = (http.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `${scheme}://${urlHost}:${port}/ws`,
    port,
    ...(tcp ? { tcpPort: tcp.port } : {}),
    ...(udp ? { udpPort: udp.port } : {}),
    stats,
    async close() {
      behaviour.close();
      for (const connection of leanConnections) connection.terminate();
      for (const client of wss?.clients ?? []) client.terminate();
      if (wss) await new Promise<void>((resolve) => wss.close(() => resolve()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await tcp?.close();
      await udp?.close();
    },
  };
}
