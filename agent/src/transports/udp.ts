import { createSocket } from "node:dgram";
import type { UdpTarget } from "@throng/protocol/plan";
import {
  FixedMessage,
  type OpenOptions,
  type Transport,
  type TransportConnection,
  type TransportEvents,
} from "./transport";

/**
 * The agent's datagram path: one connected UDP socket per client, under the UDP transport and KCP alike. Everything
 * a client sends or receives passes here one datagram at a time, so a stage that delays, drops, duplicates or
 * reorders datagrams (a cohort's network) wraps a DatagramSocket and its handlers and changes nothing above.
 */

export interface DatagramEndpoint {
  host: string;
  port: number;
  /** The local IP to bind (a source address); the kernel picks the port. */
  localAddress?: string;
}

export interface DatagramHandlers {
  /** The socket is connected: datagrams may be sent. */
  onOpen(): void;
  /** One datagram in, the receiver's to keep; `receivedAt` is its performance.now() time. */
  onDatagram(datagram: Buffer, receivedAt: number): void;
  /** Exactly once: the socket is closed, by close() or because it failed (`error`). */
  onClose(error?: Error): void;
}

export interface DatagramSocket {
  /** One datagram out. Its bytes must not change after the call: a stage may hold them to send later. */
  send(datagram: Uint8Array | string): void;
  /** Closes the socket; onClose follows. */
  close(): void;
}

/**
 * A stage on one client's datagram path (a network cohort's conditions, network/datagram-stage.ts): given the
 * client's handlers and how to open its socket, it opens the socket with handlers of its own and returns the socket
 * the client uses.
 */
export type DatagramStage = (
  handlers: DatagramHandlers,
  open: (handlers: DatagramHandlers) => DatagramSocket,
) => DatagramSocket;

/** Opens a client's datagram socket, through its stage when it has one. */
export function openClientDatagrams(
  endpoint: DatagramEndpoint,
  handlers: DatagramHandlers,
  stage: DatagramStage | undefined,
): DatagramSocket {
  const open = (inner: DatagramHandlers) => openDatagramSocket(endpoint, inner);
  return stage ? stage(handlers, open) : open(handlers);
}

/** Opens a connected UDP socket to `endpoint` (bound to its local address first, when it has one). */
export function openDatagramSocket(endpoint: DatagramEndpoint, handlers: DatagramHandlers): DatagramSocket {
  const socket = createSocket({ type: endpoint.host.includes(":") ? "udp6" : "udp4" });
  let opened = false;
  let closed = false;
  let error: Error | undefined;
  socket.on("message", (message) => handlers.onDatagram(message, performance.now()));
  socket.on("error", (cause) => {
    // ICMP port-unreachable shows up as ECONNREFUSED on a connected socket: a lost datagram, not the end.
    if (opened && (cause as NodeJS.ErrnoException).code === "ECONNREFUSED") return;
    error ??= cause;
    if (!closed) socket.close();
    closed = true;
  });
  socket.on("close", () => {
    closed = true;
    handlers.onClose(error);
  });
  const connect = () =>
    socket.connect(endpoint.port, endpoint.host, () => {
      opened = true;
      handlers.onOpen();
    });
  if (endpoint.localAddress) socket.bind(0, endpoint.localAddress, connect);
  else connect();
  return {
    send: (datagram) => socket.send(datagram),
    close() {
      if (closed) return;
      closed = true;
      socket.close();
    },
  };
}

function openUdp(target: UdpTarget, events: TransportEvents, options: OpenOptions = {}): TransportConnection {
  let opened = false;
  let closed = false;
  let resolveEnded!: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  const socket = openClientDatagrams(
    { host: target.host, port: target.port, ...(options.localAddress ? { localAddress: options.localAddress } : {}) },
    {
      onOpen() {
        opened = true;
        events.onOpen();
      },
      onDatagram: (datagram, receivedAt) => events.onMessage(datagram, receivedAt),
      onClose(error) {
        closed = true;
        events.onEnd({ opened, ...(error ? { error } : {}) });
        resolveEnded();
      },
    },
    options.datagramStage,
  );
  return {
    send(data) {
      if (!opened || closed) return false;
      // One datagram is the message itself: nothing to frame.
      socket.send(data instanceof FixedMessage ? data.payload : data);
      return true;
    },
    close() {
      socket.close();
      return ended;
    },
  };
}

/** UDP load transport: a connected socket per client, one datagram per message; "open" once connected. */
export function udpTransport(target: UdpTarget): Transport {
  return { open: (events, options) => openUdp(target, events, options) };
}
