import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { acceptKey, closePayload, encodeFrame, FrameDecoder, OPCODE, ProtocolError, type FrameSink } from "../transports/websocket-frames";

/**
 * The reference target's own WebSocket server side, on node:http's "upgrade" event: the same frame codec as the
 * agent's lean client (websocket-frames.ts), so the target spends its core on answering, not on the ws library's
 * streams. It speaks what a game server's load needs: text and binary messages, fragmentation, ping and close.
 */


export interface ServerConnection {
  /** Sends one message as a text frame (strings) or a binary frame (buffers when `binary`); false once closed. */
  send(data: Buffer | string, binary: boolean): boolean;
  terminate(): void;
}

export interface ServerHandlers {
  /** `data` is the socket's own read (unmasked in place), or a joined message: the target may keep it. */
  onMessage(data: Buffer, binary: boolean): void;
  onClose(): void;
}

/** Answers an upgrade request that must not go ahead (client limit, bad request) and drops the socket. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`);
  socket.destroy();
}

/** Completes the handshake on `socket` and runs the connection; returns undefined when the request was refused. */
export function acceptUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, handlers: ServerHandlers): ServerConnection | undefined {
  const key = request.headers["sec-websocket-key"];
  if (request.headers.upgrade?.toLowerCase() !== "websocket" || typeof key !== "string" || !/^[+/0-9A-Za-z]{22}==$/.test(key) || request.headers["sec-websocket-version"] !== "13") {
    refuseUpgrade(socket, 400, "Bad Request");
    return undefined;
  }
  // Like the ws library: the first subprotocol the client offers is the one chosen.
  const protocol = request.headers["sec-websocket-protocol"]?.split(",")[0]?.trim();
  const accept = acceptKey(key);
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n${protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : ""}\r\n`);
  let open = true;
  let closed = false;
  const sink: FrameSink = {
    frameMessage(data, binary) {
      if (open) handlers.onMessage(data, binary);
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
  const decoder = new FrameDecoder(sink, true);
  const onData = (chunk: Buffer) => {
    try {
      decoder.push(chunk);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      socket.destroy();
    }
  };
  socket.on("data", onData);
  socket.on("error", () => socket.destroy());
  // node:http's sockets allow half-open connections: end ours when the client ends its side (once; a second
  // end() builds an ERR_STREAM_ALREADY_FINISHED, stack and all, which was ~10% of the target's CPU in a storm).
  socket.on("end", () => socket.writableEnded || socket.end());
  socket.once("close", () => {
    open = false;
    if (closed) return;
    closed = true;
    handlers.onClose();
  });
  // Bytes that came with the request are handled once the caller holds the connection (a reply needs it).
  if (head.length) queueMicrotask(() => onData(head));
  return {
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
}
