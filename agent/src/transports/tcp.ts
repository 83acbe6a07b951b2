import type { TcpTarget } from "@throng/protocol/plan";
import { createFramer } from "./framing";
import { openStreamSocket, type StreamSocket } from "./stream-socket";
import {
  FixedMessage,
  localEnd,
  type OpenOptions,
  type Transport,
  type TransportConnection,
  type TransportEvents,
} from "./transport";

const CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

function openTcp(target: TcpTarget, events: TransportEvents, options: OpenOptions = {}): TransportConnection {
  // The plan schema lets only a script scenario (which opens its own sockets, never this transport) leave it out.
  if (!target.framing)
    throw new Error("a TCP target needs a framing to cut messages out of the stream: give target.framing");
  const framer = createFramer(target.framing);
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
  const attempt = (): StreamSocket | undefined => {
    const bind = local.next();
    if (bind instanceof Error) {
      error = bind;
      setImmediate(end);
      return undefined;
    }
    const connectTimer = setTimeout(
      () => attemptSocket.destroy(Object.assign(new Error("connect timed out"), { code: "ETIMEDOUT" })),
      CONNECT_TIMEOUT_MS,
    );
    const attemptSocket: StreamSocket = openStreamSocket(
      { host: target.host, port: target.port, ...bind },
      {
        onConnect() {
          clearTimeout(connectTimer);
          opened = true;
          events.onOpen();
        },
        onData(chunk, receivedAt) {
          try {
            framer.push(chunk, (message) => events.onMessage(message, receivedAt));
          } catch (cause) {
            attemptSocket.destroy(cause as Error);
          }
        },
        onClose(cause) {
          clearTimeout(connectTimer);
          error ??= cause;
          if (!opened && !closing && local.lease?.retries(error)) {
            error = undefined;
            socket = attempt();
            return;
          }
          end();
        },
      },
    );
    return attemptSocket;
  };
  let socket = attempt();

  return {
    send(data) {
      if (!opened || !socket || socket.destroyed || closing) return false;
      if (data instanceof FixedMessage) socket.write(data.framed(target.framing, framer.encode));
      else
        socket.write(
          framer.encode(
            typeof data === "string" ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength),
          ),
        );
      return true;
    },
    close(timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS) {
      closing = true;
      if (!opened) socket?.destroy();
      else socket?.end();
      const force = setTimeout(() => socket?.destroy(), timeoutMs);
      return ended.finally(() => clearTimeout(force));
    },
  };
}

/** TCP load transport: one socket per client, messages framed as the plan says, Nagle off. */
export function tcpTransport(target: TcpTarget): Transport {
  return { open: (events, options) => openTcp(target, events, options) };
}
