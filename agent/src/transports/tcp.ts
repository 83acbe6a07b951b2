import { connect, type Socket } from "node:net";
import type { TcpTarget } from "@throng/protocol/plan";
import { createFramer } from "./framing";
import { sharedRead } from "./read-buffer";
import type { OpenOptions, Transport, TransportConnection, TransportEvents } from "./transport";

const CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

function openTcp(target: TcpTarget, events: TransportEvents, options: OpenOptions = {}): TransportConnection {
  const framer = createFramer(target.framing);
  const socket: Socket = connect({
    host: target.host,
    port: target.port,
    noDelay: true,
    onread: sharedRead((chunk) => {
      try {
        framer.push(chunk, (message) => events.onMessage(message));
      } catch (cause) {
        socket.destroy(cause as Error);
      }
    }),
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  });
  let opened = false;
  let closing = false;
  let error: Error | undefined;
  let resolveEnded!: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  const connectTimer = setTimeout(() => socket.destroy(Object.assign(new Error("connect timed out"), { code: "ETIMEDOUT" })), CONNECT_TIMEOUT_MS);

  socket.once("connect", () => {
    clearTimeout(connectTimer);
    opened = true;
    events.onOpen();
  });
  socket.on("error", (cause) => {
    error ??= cause;
  });
  socket.on("close", () => {
    clearTimeout(connectTimer);
    events.onEnd({ opened, ...(error ? { error } : {}), ...(opened && !closing ? { byPeer: true } : {}) });
    resolveEnded();
  });

  return {
    send(data) {
      if (!opened || socket.destroyed || closing) return false;
      socket.write(framer.encode(typeof data === "string" ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength)));
      return true;
    },
    close(timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS) {
      closing = true;
      if (!opened) socket.destroy();
      else socket.end();
      const force = setTimeout(() => socket.destroy(), timeoutMs);
      return ended.finally(() => clearTimeout(force));
    },
  };
}

/** TCP load transport: one socket per client, messages framed as the plan says, Nagle off. */
export function tcpTransport(target: TcpTarget): Transport {
  return { open: (events, options) => openTcp(target, events, options) };
}
