import WebSocket from "ws";
import type { Transport, TransportConnection, TransportEvents } from "./transport";

const HANDSHAKE_TIMEOUT_MS = 10_000;
const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

function toBuffer(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** A connection that failed before it existed (e.g. a URL ws rejects), reported like any failure. */
function failedConnection(events: TransportEvents, error: Error): TransportConnection {
  const ended = new Promise<void>((resolve) => setImmediate(resolve));
  setImmediate(() => events.onEnd({ opened: false, error }));
  return { send: () => false, close: () => ended };
}

function openWebSocket(url: string, events: TransportEvents): TransportConnection {
  let ws: WebSocket;
  try {
    // Compression would make the measured bytes and CPU cost depend on the payload, not the server.
    ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
  } catch (error) {
    return failedConnection(events, error as Error);
  }
  let opened = false;
  let error: Error | undefined;
  let resolveEnded!: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));

  ws.on("open", () => {
    opened = true;
    events.onOpen();
  });
  ws.on("message", (data) => events.onMessage(toBuffer(data)));
  ws.on("error", (cause) => {
    error ??= cause;
  });
  ws.on("close", () => {
    events.onEnd(error ? { opened, error } : { opened });
    resolveEnded();
  });

  return {
    send(data) {
      if (ws.readyState !== WebSocket.OPEN) return false;
      ws.send(data);
      return true;
    },
    close(timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS) {
      if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.CLOSED) {
        ws.terminate();
        return ended;
      }
      if (ws.readyState === WebSocket.OPEN) ws.close(1000, "load finished");
      // A peer that never answers the close frame must not hold the run open.
      const force = setTimeout(() => ws.terminate(), timeoutMs);
      return ended.finally(() => clearTimeout(force));
    },
  };
}

/** WebSocket load transport (text or binary frames, no compression). */
export const webSocketTransport: Transport = { open: openWebSocket };
