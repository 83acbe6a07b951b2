import { readFileSync } from "node:fs";
import { createSecureContext, rootCertificates, type SecureContext } from "node:tls";
import WebSocket from "ws";
import type { WebSocketTarget } from "@throng/protocol/plan";
import { openLeanWebSocket, upgradeRequest } from "./lean-websocket";
import {
  FixedMessage,
  localEnd,
  type OpenOptions,
  type Transport,
  type TransportConnection,
  type TransportEvents,
} from "./transport";

const HANDSHAKE_TIMEOUT_MS = 10_000;
const TEXT = { binary: false } as const;
const BINARY = { binary: true } as const;
/**
 * Leaves ws's mask key all zeros, so it skips masking: a zero key is a valid masked frame to any server, and
 * the random key plus the XOR pass over every payload were a large share of the agent's CPU per message.
 * (Random keys protect browsers' intermediaries from cache poisoning; a load generator needs none.)
 */
const zeroMask = () => {};
const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

function toBuffer(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

type TlsOptions = { secureContext?: SecureContext; rejectUnauthorized?: false };

/**
 * The plan's wss:// certificate check, built once per shard (one secure context, not one per connection): extra
 * CAs are added to the system's, not put in their place.
 */
function tlsOptions(target: WebSocketTarget): TlsOptions {
  if (!target.tls) return {};
  const options: TlsOptions = {};
  if (target.tls.caFile) {
    let pem: string;
    try {
      pem = readFileSync(target.tls.caFile, "utf8");
    } catch (error) {
      throw new Error(`target.tls.caFile: cannot read ${target.tls.caFile}: ${(error as Error).message}`);
    }
    if (!pem.includes("-----BEGIN CERTIFICATE-----"))
      throw new Error(`target.tls.caFile: ${target.tls.caFile} holds no PEM certificate`);
    options.secureContext = createSecureContext({ ca: [...rootCertificates, pem] });
  }
  if (target.tls.insecureSkipVerify) options.rejectUnauthorized = false;
  return options;
}

function openWebSocket(
  target: WebSocketTarget,
  tls: TlsOptions,
  events: TransportEvents,
  options: OpenOptions = {},
): TransportConnection {
  const frameOptions = target.frames === "binary" ? BINARY : TEXT;
  const local = localEnd(options);
  let opened = false;
  let closing = false;
  let error: Error | undefined;
  let resolveEnded!: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  const end = () => {
    local.lease?.release();
    events.onEnd({ opened, ...(error ? { error } : {}), ...(opened && !closing ? { byPeer: true } : {}) });
    resolveEnded();
  };

  /** One connect attempt; a local port someone else holds starts the next attempt from another port. */
  const attempt = (): WebSocket | undefined => {
    const bind = local.next();
    let attemptWs: WebSocket;
    try {
      if (bind instanceof Error) throw bind;
      // Compression would make the measured bytes and CPU cost depend on the payload, not the server.
      attemptWs = new WebSocket(target.url, target.subprotocols ?? [], {
        perMessageDeflate: false,
        handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
        generateMask: zeroMask,
        ...tls,
        ...(target.headers ? { headers: target.headers } : {}),
        ...bind,
      });
    } catch (cause) {
      error ??= cause as Error;
      setImmediate(end);
      return undefined;
    }
    attemptWs.on("open", () => {
      opened = true;
      events.onOpen();
    });
    attemptWs.on("message", (data) => events.onMessage(toBuffer(data), performance.now()));
    attemptWs.on("error", (cause) => {
      error ??= cause;
    });
    attemptWs.on("close", () => {
      if (!opened && !closing && local.lease?.retries(error)) {
        error = undefined;
        ws = attempt();
        return;
      }
      end();
    });
    return attemptWs;
  };
  let ws = attempt();

  return {
    send(data) {
      if (ws?.readyState !== WebSocket.OPEN) return false;
      // ws frames (and masks) every send itself: a fixed message is only its payload here.
      ws.send(data instanceof FixedMessage ? data.payload : data, frameOptions);
      return true;
    },
    close(timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS) {
      closing = true;
      if (!ws) return ended;
      if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.CLOSED) {
        ws.terminate();
        return ended;
      }
      if (ws.readyState === WebSocket.OPEN) ws.close(1000, "load finished");
      // A peer that never answers the close frame must not hold the run open.
      const force = setTimeout(() => ws?.terminate(), timeoutMs);
      return ended.finally(() => clearTimeout(force));
    },
  };
}

/**
 * WebSocket load transport (text or binary frames, custom headers and subprotocols, ws:// and wss://, no
 * compression). ws:// uses the lean client unless the target asks for the ws library; wss:// always uses ws.
 */
export function webSocketTransport(target: WebSocketTarget): Transport {
  if (target.client === "ws" || target.url.startsWith("wss:")) {
    const tls = tlsOptions(target);
    return { open: (events, options) => openWebSocket(target, tls, events, options) };
  }
  let request: ReturnType<typeof upgradeRequest> | Error;
  try {
    request = upgradeRequest(target);
  } catch (error) {
    request = error as Error;
  }
  const binary = target.frames === "binary";
  return { open: (events, options) => openLeanWebSocket(request, binary, events, options) };
}
