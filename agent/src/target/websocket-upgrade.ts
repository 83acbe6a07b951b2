import type { AcceptedHandlers, StreamSocket } from "../transports/stream-socket";
import {
  acceptKey,
  closePayload,
  encodeFrame,
  FrameDecoder,
  OPCODE,
  ProtocolError,
  type FrameSink,
} from "../transports/websocket-frames";

/**
 * The reference target's own ws:// server, on a bare TCP connection (stream-socket.ts, so on the native I/O path
 * when it is loaded): it reads one HTTP request, answers /stats or refuses anything but a WebSocket upgrade, then
 * runs the same frame codec as the agent's lean client (websocket-frames.ts). node:http and the ws library would
 * spend the target's core on their streams; a target that saturates first measures itself, not the server side
 * of a test. It speaks what a game server's load needs: text and binary messages, fragmentation, ping and close.
 */

export interface ServerConnection {
  /** Sends one message as a text frame (strings) or a binary frame (buffers when `binary`); false once closed. */
  send(data: Buffer | string, binary: boolean): boolean;
  terminate(): void;
}

export interface ServerHandlers {
  /** `data` is the socket's own read (unmasked in place), or a joined message: valid during the call only. */
  onMessage(data: Buffer, binary: boolean): void;
  onClose(): void;
}

export interface WebSocketFront {
  /** True when an upgrade must be refused with 503 (the client limit). */
  atLimit(): boolean;
  /** The body of GET /stats (a target of several processes asks the others first). */
  statsJson(): string | Promise<string>;
  /** An upgrade went ahead: the connection's message and close handlers. */
  open(connection: ServerConnection): ServerHandlers;
}

/** The largest request head read before answering 431: an upgrade request is a few hundred bytes. */
const MAX_HEAD_BYTES = 16 * 1024;
const HEAD_END = Buffer.from("\r\n\r\n");

/** Bytes that never appear in an HTTP request head: controls other than tab, CR and LF, and DEL. */
const notHeadByte = (byte: number) => (byte < 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== 0x0a) || byte === 0x7f;

interface RequestHead {
  method: string;
  path: string;
  headers: Map<string, string>;
}

/** Parses an HTTP/1.x request head (without its blank line); undefined when it is not one. */
export function parseRequestHead(text: string): RequestHead | undefined {
  const lines = text.split("\r\n");
  const [method, path, version] = lines[0]!.split(" ");
  if (!method || !path || !version?.startsWith("HTTP/1.")) return undefined;
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    // Repeated headers join as one list, as node:http does for Sec-WebSocket-Protocol.
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  return { method, path, headers };
}

function httpResponse(status: string, contentType: string, body: string): string {
  return `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** The handlers of one accepted connection: its HTTP request first, then (upgraded) its WebSocket frames. */
export function serveWebSocketFront(socket: StreamSocket, front: WebSocketFront): AcceptedHandlers {
  let answered = false;
  let head: Buffer | undefined;
  let decoder: FrameDecoder | undefined;
  let handlers: ServerHandlers | undefined;
  let open = false;

  /** Answers and ends the connection (our FIN follows the answer; the client's closes it); later bytes are ignored. */
  const answer = (status: string, contentType: string, body: string) => {
    answered = true;
    socket.write(Buffer.from(httpResponse(status, contentType, body)));
    socket.end();
  };

  const request = (chunk: Buffer) => {
    // Reads are views of a reused buffer: keep a copy until the head is whole.
    head = head ? Buffer.concat([head, chunk]) : Buffer.from(chunk);
    const end = head.indexOf(HEAD_END);
    // A control byte is no HTTP (a TLS ClientHello opens with 0x16): answer now rather than wait for a blank line.
    if (head.subarray(0, end < 0 ? head.length : end).some(notHeadByte))
      return answer("400 Bad Request", "text/plain", "not an HTTP/1.1 request\n");
    if (end < 0) {
      if (head.length > MAX_HEAD_BYTES)
        answer("431 Request Header Fields Too Large", "text/plain", "request head too large\n");
      return;
    }
    const rest = head.subarray(end + HEAD_END.length);
    const parsed = parseRequestHead(head.toString("latin1", 0, end));
    head = undefined;
    if (!parsed) return answer("400 Bad Request", "text/plain", "not an HTTP/1.1 request\n");
    if (parsed.headers.get("upgrade")?.toLowerCase() === "websocket") return upgrade(parsed, rest);
    if (parsed.method === "GET" && parsed.path === "/stats") {
      answered = true;
      return void Promise.resolve()
        .then(() => front.statsJson())
        .then(
          (body) => socket.destroyed || answer("200 OK", "application/json", body),
          (error: unknown) =>
            socket.destroyed ||
            answer("503 Service Unavailable", "text/plain", `stats unavailable: ${(error as Error).message}\n`),
        );
    }
    answer("426 Upgrade Required", "text/plain", "this is a WebSocket server; connect to ws://host:port/ws\n");
  };

  const upgrade = ({ headers }: RequestHead, rest: Buffer) => {
    const key = headers.get("sec-websocket-key");
    if (!key || !/^[+/0-9A-Za-z]{22}==$/.test(key) || headers.get("sec-websocket-version") !== "13")
      return answer("400 Bad Request", "text/plain", "Bad Request");
    if (front.atLimit()) return answer("503 client limit reached", "text/plain", "client limit reached");
    // Like the ws library: the first subprotocol the client offers is the one chosen.
    const protocol = headers.get("sec-websocket-protocol")?.split(",")[0]?.trim();
    socket.write(
      Buffer.from(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptKey(key)}\r\n${protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : ""}\r\n`,
      ),
    );
    open = true;
    decoder = new FrameDecoder(sink, true);
    handlers = front.open(connection);
    if (rest.length) frames(rest);
  };

  const sink: FrameSink = {
    frameMessage(data, binary) {
      if (open) handlers!.onMessage(data, binary);
    },
    framePing(payload) {
      if (open) socket.write(encodeFrame(OPCODE.pong, payload, false));
    },
    frameClose(payload) {
      if (open) {
        open = false;
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1000;
        socket.write(encodeFrame(OPCODE.close, closePayload(code === 1005 || code === 1006 ? 1000 : code), false));
      }
      socket.end();
    },
  };

  const frames = (chunk: Buffer) => {
    try {
      decoder!.push(chunk);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      socket.destroy();
    }
  };

  const connection: ServerConnection = {
    send(data, binary) {
      if (!open || socket.destroyed) return false;
      socket.write(encodeFrame(typeof data === "string" || !binary ? OPCODE.text : OPCODE.binary, data, false));
      return true;
    },
    terminate() {
      open = false;
      socket.destroy();
    },
  };

  return {
    onData: (chunk) => (decoder ? frames(chunk) : answered || request(chunk)),
    onClose() {
      open = false;
      handlers?.onClose();
    },
  };
}
