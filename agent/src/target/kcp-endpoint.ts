import { createSocket, type RemoteInfo, type Socket } from "node:dgram";
import { kcpSettings, type KcpModeName, type KcpSettings } from "@throng/protocol/kcp-modes";
import { TimerWheel, type WheelTimer } from "../transports/timer-wheel";
import { Kcp, KcpStats, type KcpHost } from "../transports/kcp";
import type { Peer, TargetBehaviour } from "./target-behaviour";

/**
 * The reference target's KCP endpoint (`throng-agent target --kcp-port`): one UDP socket, a KCP conversation per
 * client address (taking the client's conv from its first datagram, as kcp-go's listener does), message mode, and
 * the target's behaviour on every message. The agent's own KCP (transports/kcp.ts) on the server's side.
 */

/** A client silent this long is gone (KCP has no close): it leaves its rooms. */
const IDLE_MS = 60_000;
const SWEEP_EVERY_MS = 10_000;
const nowMs = () => Math.floor(performance.now());

class KcpPeer implements Peer, KcpHost, WheelTimer {
  tick = -1;
  prev: WheelTimer | null = null;
  next: WheelTimer | null = null;
  list = -1;
  rooms = new Set<number>();
  readonly kcp: Kcp;
  lastHeard = nowMs();
  gone = false;

  constructor(
    readonly conv: number,
    private readonly remote: RemoteInfo,
    private readonly socket: Socket,
    private readonly wheel: TimerWheel,
    private readonly behaviour: TargetBehaviour,
    settings: KcpSettings,
    stats: KcpStats,
  ) {
    this.kcp = new Kcp({ ...settings, conv }, this, stats, nowMs());
  }

  input(datagram: Buffer): void {
    this.lastHeard = nowMs();
    this.kcp.input(datagram, this.lastHeard);
    this.settle();
  }

  // Peer: the target's replies and room broadcasts.
  send(data: Buffer | string): void {
    if (this.gone) return;
    this.kcp.send(typeof data === "string" ? Buffer.from(data) : data);
    this.kcp.flush(nowMs());
    this.settle();
  }

  // KcpHost.
  output(buffer: Buffer, size: number): void {
    // A copy: KCP reuses its buffer, and the socket may still hold what it was given.
    if (!this.gone) this.socket.send(Buffer.from(buffer.subarray(0, size)), this.remote.port, this.remote.address);
  }

  deliver(data: Buffer): void {
    if (!this.gone) this.behaviour.handle(this, data);
  }

  // WheelTimer.
  run(): void {
    if (this.gone) return;
    this.kcp.flush(nowMs());
    this.settle();
  }

  leave(): void {
    this.gone = true;
    this.wheel.clear(this);
    this.kcp.release();
    this.behaviour.leave(this);
  }

  private settle(): void {
    if (this.gone) return;
    const wakeAt = this.kcp.wakeAt(nowMs());
    if (wakeAt === Infinity) this.wheel.clear(this);
    else if (this.tick !== Math.ceil(wakeAt)) this.wheel.set(this, wakeAt);
  }
}

/** Serves KCP on `port` (0 picks a free one) with a kcptun mode's tuning (fast by default). */
export async function serveKcp(
  port: number,
  host: string,
  behaviour: TargetBehaviour,
  mode?: KcpModeName,
): Promise<{ port: number; close(): Promise<void> }> {
  const socket = createSocket({ type: host.includes(":") ? "udp6" : "udp4" });
  const settings = kcpSettings({ mode });
  const wheel = new TimerWheel();
  const stats = new KcpStats();
  const peers = new Map<string, KcpPeer>();
  socket.on("message", (datagram, remote) => {
    if (datagram.length < 24) return;
    const key = `${remote.address}:${remote.port}`;
    const conv = datagram.readUInt32LE(0);
    let peer = peers.get(key);
    if (peer && peer.conv !== conv) {
      // Another conversation from the same address replaces it only from its first segment (sn 0), as kcp-go does.
      if (datagram.readUInt32LE(12) !== 0) return;
      peer.leave();
      peer = undefined;
    }
    if (!peer) {
      peer = new KcpPeer(conv, remote, socket, wheel, behaviour, settings, stats);
      peers.set(key, peer);
    }
    peer.input(datagram);
    if (peer.kcp.dead) {
      peer.leave();
      peers.delete(key);
    }
  });
  // An unreachable client (ICMP) is only a lost datagram; the target goes on serving the rest.
  socket.on("error", () => {});
  const sweep = setInterval(() => {
    const before = nowMs() - IDLE_MS;
    for (const [key, peer] of peers) {
      if (peer.lastHeard >= before && !peer.kcp.dead) continue;
      peer.leave();
      peers.delete(key);
    }
  }, SWEEP_EVERY_MS);
  sweep.unref();
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, host, () => resolve());
  });
  return {
    port: socket.address().port,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweep);
        for (const peer of peers.values()) peer.leave();
        peers.clear();
        socket.close(() => resolve());
      }),
  };
}
