import { createSocket } from "node:dgram";
import type { UdpTarget } from "@throng/protocol/plan";
import { FixedMessage, type OpenOptions, type Transport, type TransportConnection, type TransportEvents } from "./transport";

function openUdp(target: UdpTarget, events: TransportEvents, options: OpenOptions = {}): TransportConnection {
  const socket = createSocket({ type: target.host.includes(":") ? "udp6" : "udp4" });
  let opened = false;
  let closed = false;
  let error: Error | undefined;
  let resolveEnded!: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  const finish = () => {
    if (closed) return;
    closed = true;
    events.onEnd({ opened, ...(error ? { error } : {}) });
    resolveEnded();
  };
  socket.on("message", (message) => events.onMessage(message, performance.now()));
  socket.on("error", (cause) => {
    // ICMP port-unreachable shows up as ECONNREFUSED on a connected socket: a lost datagram, not the end.
    if (opened && (cause as NodeJS.ErrnoException).code === "ECONNREFUSED") return;
    error ??= cause;
    socket.close();
  });
  socket.on("close", finish);
  const connect = () =>
    socket.connect(target.port, target.host, () => {
      opened = true;
      events.onOpen();
    });
  if (options.localAddress) socket.bind(0, options.localAddress, connect);
  else connect();

  return {
    send(data) {
      if (!opened || closed) return false;
      // One datagram is the message itself: nothing to frame.
      socket.send(data instanceof FixedMessage ? data.payload : data);
      return true;
    },
    close() {
      if (!closed) socket.close();
      return ended;
    },
  };
}

/** UDP load transport: a connected socket per client, one datagram per message; "open" once connected. */
export function udpTransport(target: UdpTarget): Transport {
  return { open: (events, options) => openUdp(target, events, options) };
}
