import type { TimerWheel, WheelTimer } from "../transports/timer-wheel";
import type { DatagramHandlers, DatagramSocket, DatagramStage } from "../transports/udp";
import { DROPPED, type Link } from "./link";

/**
 * A cohort's network on the agent's datagram path (UDP and KCP): each datagram a client sends or receives passes
 * its link for that direction, which drops it, or holds it until its time on the engine's timer wheel and then
 * sends (or delivers) it, once or twice. The client's protocol above (KCP's timers, a ping's timeout) sees only
 * what a real network with those conditions would have let through, when it would have.
 */

interface Held {
  at: number;
  datagram: Buffer | Uint8Array | string;
}

/** The datagrams one direction holds, in release order, and its one wheel timer. */
class Direction implements WheelTimer {
  tick = -1;
  prev: WheelTimer | null = null;
  next: WheelTimer | null = null;
  list = -1;
  private readonly held: Held[] = [];

  constructor(
    private readonly link: Link,
    private readonly wheel: TimerWheel,
    private readonly pass: (datagram: Buffer | Uint8Array | string, at: number) => void,
  ) {}

  offer(datagram: Buffer | Uint8Array | string, bytes: number): void {
    const now = performance.now();
    const at = this.link.decide(now, bytes);
    if (at === DROPPED) return;
    const copies = this.link.duplicated ? 2 : 1;
    for (let i = 0; i < copies; i += 1) this.hold({ at, datagram });
  }

  private hold(item: Held): void {
    const { held } = this;
    // Nearly always the last (delays keep order); a reordered datagram goes ahead of those it overtakes.
    let i = held.length;
    while (i > 0 && held[i - 1]!.at > item.at) i -= 1;
    held.splice(i, 0, item);
    if (i === 0) this.wheel.set(this, item.at);
  }

  /** WheelTimer: what is due goes, in order. */
  run(): void {
    const now = performance.now();
    const { held } = this;
    let due = 0;
    while (due < held.length && held[due]!.at <= now + 0.5) due += 1;
    const going = held.splice(0, due);
    if (held.length) this.wheel.set(this, held[0]!.at);
    for (const item of going) this.pass(item.datagram, now);
  }

  stop(): void {
    this.wheel.clear(this);
    this.held.length = 0;
  }
}

/** The stage for one client: its up and down links (either may be absent: that direction passes untouched). */
export function datagramStage(links: { up?: Link; down?: Link }, wheel: TimerWheel): DatagramStage {
  return (handlers: DatagramHandlers, open: (handlers: DatagramHandlers) => DatagramSocket): DatagramSocket => {
    let closed = false;
    const down = links.down
      ? new Direction(links.down, wheel, (datagram, at) => {
          if (!closed) handlers.onDatagram(datagram as Buffer, at);
        })
      : undefined;
    const socket = open({
      onOpen: () => handlers.onOpen(),
      onDatagram(datagram, receivedAt) {
        if (down) down.offer(datagram, datagram.length);
        else handlers.onDatagram(datagram, receivedAt);
      },
      onClose(error) {
        closed = true;
        up?.stop();
        down?.stop();
        handlers.onClose(error);
      },
    });
    const up = links.up
      ? new Direction(links.up, wheel, (datagram) => {
          if (!closed) socket.send(datagram);
        })
      : undefined;
    return {
      send(datagram) {
        if (up) up.offer(datagram, typeof datagram === "string" ? Buffer.byteLength(datagram) : datagram.byteLength);
        else socket.send(datagram);
      },
      close() {
        closed = true;
        up?.stop();
        down?.stop();
        socket.close();
      },
    };
  };
}
