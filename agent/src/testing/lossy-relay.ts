import { createSocket, type RemoteInfo, type Socket } from "node:dgram";
import { seededRandom } from "../engine/seeded-random";

/**
 * A bad network for a test, between clients and a UDP server: every datagram, each way, is dropped with
 * probability `lossPercent` and otherwise forwarded `delayMs` later (in order: one delay for all). Each client
 * address gets its own upstream socket, so the server sees one peer per client, as without the relay.
 */
export interface LossyRelay {
  port: number;
  /** Datagrams dropped and forwarded so far, both ways. */
  readonly dropped: number;
  readonly forwarded: number;
  close(): Promise<void>;
}

export async function startLossyRelay(
  server: { host: string; port: number },
  options: { lossPercent: number; delayMs: number; seed?: string },
): Promise<LossyRelay> {
  const random = seededRandom(options.seed ?? "lossy relay");
  const front = createSocket("udp4");
  const upstreams = new Map<string, Socket>();
  const pending = new Set<NodeJS.Timeout>();
  let dropped = 0;
  let forwarded = 0;
  let closed = false;
  const later = (send: () => void) => {
    if (random() * 100 < options.lossPercent) {
      dropped += 1;
      return;
    }
    forwarded += 1;
    const timer = setTimeout(() => {
      pending.delete(timer);
      if (!closed) send();
    }, options.delayMs);
    pending.add(timer);
  };
  const upstreamFor = (client: RemoteInfo): Socket => {
    const key = `${client.address}:${client.port}`;
    let upstream = upstreams.get(key);
    if (!upstream) {
      const socket = createSocket("udp4");
      socket.on("message", (datagram) => later(() => front.send(datagram, client.port, client.address)));
      socket.on("error", () => {});
      socket.connect(server.port, server.host);
      upstream = socket;
      upstreams.set(key, upstream);
    }
    return upstream;
  };
  front.on("message", (datagram, client) => {
    const upstream = upstreamFor(client);
    later(() => upstream.send(datagram));
  });
  await new Promise<void>((resolve) => front.bind(0, "127.0.0.1", resolve));
  return {
    port: front.address().port,
    get dropped() {
      return dropped;
    },
    get forwarded() {
      return forwarded;
    },
    async close() {
      closed = true;
      pending.forEach(clearTimeout);
      const sockets = [front, ...upstreams.values()];
      await Promise.all(sockets.map((socket) => new Promise<void>((resolve) => socket.close(() => resolve()))));
    },
  };
}
