import { randomFillSync } from "node:crypto";
import type { WebSocketTarget } from "@throng/protocol/plan";
import { PortLease } from "./local-ports";
import { openStreamSocket, type StreamEndpoint, type StreamSocket, type StreamSocketHandlers } from "./stream-socket";
import {
  failedConnection,
  FixedMessage,
  type OpenOptions,
  type OutgoingMessage,
  type TransportConnection,
  type TransportEnd,
  type TransportEvents,
} from "./transport";
import {
  acceptKey,
  closePayload,
  encodeFrame,
  FrameDecoder,
  OPCODE,
  ProtocolError,
  type FrameSink,
} from "./websocket-frames";

/**
 * Throng's own ws:// client for the load path: a plain `net` socket, a hand-written HTTP upgrade and the frame
 * codec in websocket-frames.ts. Against the `ws` library it skips the stream machinery per read (reads land in one
 * shared buffer via `onread`, see read-buffer.ts), the http.ClientRequest per connect and the per-frame corking, which was most of
 * the agent's CPU per message. wss:// stays on the `ws` library (see websocket.ts).
 */

const HANDSHAKE_TIMEOUT_MS = 10_000;
const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;
/** A server's upgrade answer larger than this is not one. */
const MAX_RESPONSE_HEAD_BYTES = 16 * 1024;
/** Random bytes for Sec-WebSocket-Key, refilled in batches rather than one crypto call per connection. */
const KEY_BATCH = Buffer.allocUnsafe(16 * 256);
let keyAt = KEY_BATCH.length;

function nextKey(): string {
  if (keyAt === KEY_BATCH.length) {
    randomFillSync(KEY_BATCH);
    keyAt = 0;
  }
  keyAt += 16;
  return KEY_BATCH.toString("base64", keyAt - 16, keyAt);
}

/** What every connection to one target shares: the address and the request head without its key. */
export interface UpgradeRequest {
  host: string;
  port: number;
  /** The request up to and including "Sec-WebSocket-Key: ". */
  head: string;
  /** Everything after the key, through the blank line. */
  tail: string;
  subprotocols: string[];
}

/** Builds the upgrade request for a ws:// target once; throws on a URL that is not ws://. */
export function upgradeRequest(target: WebSocketTarget): UpgradeRequest {
  const url = new URL(target.url);
  if (url.protocol !== "ws:") throw new Error(`the lean WebSocket client speaks ws:// only, not ${url.protocol}`);
  const port = url.port ? Number(url.port) : 80;
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const subprotocols = target.subprotocols ?? [];
  const lines = [
    `GET ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    "Connection: Upgrade",
    "Upgrade: websocket",
    "Sec-WebSocket-Version: 13",
  ];
  if (subprotocols.length) lines.push(`Sec-WebSocket-Protocol: ${subprotocols.join(", ")}`);
  for (const [name, value] of Object.entries(target.headers ?? {})) lines.push(`${name}: ${value}`);
  return { host, port, head: `${lines.join("\r\n")}\r\nSec-WebSocket-Key: `, tail: "\r\n\r\n", subprotocols };
}

/** Checks a server's upgrade answer; returns the bytes after its head, or throws an error naming what was wrong. */
function checkUpgrade(head: string, key: string, subprotocols: string[]): void {
  const lines = head.split("\r\n");
  const status = /^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? "")?.[1];
  if (status !== "101") throw new Error(`Unexpected server response: ${status ?? lines[0]}`);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  if (headers.get("upgrade")?.toLowerCase() !== "websocket")
    throw new Error("Invalid Upgrade header in the handshake answer");
  const accept = acceptKey(key);
  if (headers.get("sec-websocket-accept") !== accept)
    throw new Error("Invalid Sec-WebSocket-Accept header in the handshake answer");
  const protocol = headers.get("sec-websocket-protocol");
  if (protocol !== undefined && !subprotocols.includes(protocol))
    throw new Error(`Server sent an invalid subprotocol "${protocol}" in the handshake`);
  if (protocol === undefined && subprotocols.length) throw new Error("Server sent no subprotocol in the handshake");
  if (headers.has("sec-websocket-extensions"))
    throw new Error("Server sent a Sec-WebSocket-Extensions header but none was offered in the handshake");
}

enum State {
  Upgrading,
  Open,
  Closing,
  Ended,
}

/**
 * One client connection; a class rather than closures keeps the memory per connection small: it is itself its
 * socket's handlers (a handlers object with three closures and their context, and the local end's object and
 * closure, were ~0.4 KiB per connection at 200,000 of them: docs/benchmarks.md, "c200k").
 */
class LeanWebSocket implements TransportConnection, FrameSink, StreamSocketHandlers {
  private state = State.Upgrading;
  private socket: StreamSocket | undefined;
  /** The local port this connection binds (the engine's own ports), or undefined when the kernel picks it. */
  private readonly lease: PortLease | undefined;
  private readonly localAddress: string | undefined;
  /** Sec-WebSocket-Key, until the handshake's answer is checked. */
  private key = nextKey();
  private responseHead = "";
  private readonly decoder = new FrameDecoder(this);
  private readonly opcode: number;
  private error: Error | undefined;
  /** We sent the close (or asked to stop), so an end is not the peer's doing. */
  private closedByUs = false;
  private handshakeTimer: NodeJS.Timeout | undefined;
  /** When the read being decoded was made: every message it completes was received then. */
  private readAt = 0.5;
  private resolveEnded: (() => void) | undefined;
  private ended: Promise<void> | undefined;

  constructor(
    private readonly request: UpgradeRequest,
    private readonly events: TransportEvents,
    binary: boolean,
    options: OpenOptions,
  ) {
    this.opcode = binary ? OPCODE.binary : OPCODE.text;
    this.localAddress = options.localAddress;
    this.lease =
      options.localAddress && options.localPorts ? new PortLease(options.localPorts, options.localAddress) : undefined;
    this.handshakeTimer = setTimeout(
      () => this.fail(Object.assign(new Error("WebSocket handshake timed out"), { code: "ETIMEDOUT" })),
      HANDSHAKE_TIMEOUT_MS,
    );
    this.connectSocket();
  }

  /** One connect attempt; a local port someone else holds starts the next attempt from another port. */
  private connectSocket(): void {
    const bind = this.lease ? this.lease.next() : undefined;
    if (bind instanceof Error) {
      this.error = bind;
      this.socket = undefined;
      setImmediate(() => this.onSocketClose());
      return;
    }
    // One shape for every endpoint (no spread): it lives as long as the socket.
    const endpoint: StreamEndpoint = {
      host: this.request.host,
      port: this.request.port,
      localAddress: bind?.localAddress ?? this.localAddress,
      localPort: bind?.localPort,
    };
    this.socket = openStreamSocket(endpoint, this);
  }

  // StreamSocketHandlers: the socket calls these as methods of this connection.
  onConnect(): void {
    this.socket!.write(Buffer.from(this.request.head + this.key + this.request.tail, "latin1"));
  }

  onData(chunk: Buffer, receivedAt: number): void {
    this.onRead(chunk, receivedAt);
  }

  onClose(cause: Error | undefined): void {
    this.error ??= cause;
    if (this.state === State.Upgrading && !this.closedByUs && this.lease?.retries(this.error)) {
      this.error = undefined;
      this.connectSocket();
      return;
    }
    this.onSocketClose();
  }

  send(data: OutgoingMessage): boolean {
    if (this.state !== State.Open) return false;
    this.socket!.write(
      data instanceof FixedMessage
        ? data.framed(this.opcode, (payload) => encodeFrame(this.opcode, payload))
        : encodeFrame(this.opcode, data),
    );
    return true;
  }

  close(timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS): Promise<void> {
    this.closedByUs = true;
    this.ended ??=
      this.state === State.Ended
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            this.resolveEnded = resolve;
          });
    const ended = this.ended;
    if (this.state === State.Upgrading) this.socket?.destroy();
    else if (this.state === State.Open) {
      this.state = State.Closing;
      this.socket?.write(encodeFrame(OPCODE.close, closePayload(1000, "load finished")));
    }
    if (this.state !== State.Closing) return ended;
    // A peer that never answers the close frame must not hold the run open.
    const force = setTimeout(() => this.socket?.destroy(), timeoutMs);
    return ended.finally(() => clearTimeout(force));
  }

  frameMessage(data: Buffer): void {
    if (this.state === State.Open) this.events.onMessage(data, this.readAt);
  }

  framePing(payload: Buffer): void {
    if (this.state === State.Open) this.socket?.write(encodeFrame(OPCODE.pong, payload));
  }

  /** The peer's close frame. Answer it (unless we started the close) and end our side. */
  frameClose(payload: Buffer): void {
    if (this.state === State.Open) {
      this.state = State.Closing;
      const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1000;
      this.socket?.write(encodeFrame(OPCODE.close, closePayload(code === 1005 || code === 1006 ? 1000 : code)));
    }
    this.socket?.end();
  }

  private onRead(chunk: Buffer, receivedAt: number): void {
    this.readAt = receivedAt;
    if (this.state === State.Upgrading) {
      this.onUpgradeBytes(chunk);
      return;
    }
    try {
      this.decoder.push(chunk);
    } catch (cause) {
      if (!(cause instanceof ProtocolError)) throw cause;
      this.fail(cause);
    }
  }

  private onUpgradeBytes(chunk: Buffer): void {
    this.responseHead += chunk.toString("latin1");
    const end = this.responseHead.indexOf("\r\n\r\n");
    if (end === -1) {
      if (this.responseHead.length > MAX_RESPONSE_HEAD_BYTES)
        this.fail(new Error("Invalid handshake answer: no end of headers"));
      return;
    }
    try {
      checkUpgrade(this.responseHead.slice(0, end), this.key, this.request.subprotocols);
    } catch (cause) {
      this.fail(cause as Error);
      return;
    }
    const restAt = end + 4;
    const rest = this.responseHead.length > restAt ? Buffer.from(this.responseHead.slice(restAt), "latin1") : undefined;
    this.responseHead = "";
    this.key = "";
    clearTimeout(this.handshakeTimer);
    this.handshakeTimer = undefined;
    this.state = State.Open;
    this.events.onOpen();
    if (rest && this.state === State.Open) this.onRead(rest, this.readAt);
  }

  private fail(error: Error): void {
    this.error ??= error;
    this.socket?.destroy();
  }

  private onSocketClose(): void {
    if (this.state === State.Ended) return;
    this.lease?.release();
    clearTimeout(this.handshakeTimer);
    const opened = this.state !== State.Upgrading;
    this.state = State.Ended;
    const end: TransportEnd = { opened };
    if (this.error) end.error = this.error;
    if (opened && !this.closedByUs) end.byPeer = true;
    this.events.onEnd(end);
    this.resolveEnded?.();
  }
}

/** Opens one lean ws:// connection; a bad URL fails like any other connection. */
export function openLeanWebSocket(
  request: UpgradeRequest | Error,
  binary: boolean,
  events: TransportEvents,
  options: OpenOptions = {},
): TransportConnection {
  if (request instanceof Error) return failedConnection(events, request);
  return new LeanWebSocket(request, events, binary, options);
}
