import type { TimerWheel, WheelTimer } from "../transports/timer-wheel";
import {
  FixedMessage,
  type OpenOptions,
  type OutgoingMessage,
  type Transport,
  type TransportConnection,
  type TransportEnd,
  type TransportEvents,
} from "../transports/transport";
import { DROPPED, type Link } from "./link";

/**
 * A stream cohort's delay and bandwidth where the agent cannot reach below TCP (no kernel path): whole messages are
 * held above the stream, on their way out and on their way in. TCP itself then sees the rig's short round trip, so
 * its recovery is faster than on the network asked for: the cohort's figures say "above-stream" (docs/networks.md),
 * and loss, duplicates and reordering are refused before the run (network/cohort-network.ts), since a stream never
 * shows them.
 */

interface Held<T> {
  at: number;
  item: T;
}

/** One direction's held messages in order (a stream keeps order: no reordering here), on one wheel timer. */
class MessageQueue<T> implements WheelTimer {
  tick = -1;
  prev: WheelTimer | null = null;
  next: WheelTimer | null = null;
  list = -1;
  private readonly held: Held<T>[] = [];

  constructor(
    private readonly link: Link,
    private readonly wheel: TimerWheel,
    private readonly pass: (item: T, at: number) => void,
  ) {}

  offer(item: T, bytes: number): void {
    const at = this.link.decide(performance.now(), bytes);
    if (at === DROPPED) return;
    this.held.push({ at: Math.max(at, this.held[this.held.length - 1]?.at ?? 0), item });
    if (this.held.length === 1) this.wheel.set(this, at);
  }

  run(): void {
    const now = performance.now();
    let due = 0;
    while (due < this.held.length && this.held[due]!.at <= now + 0.5) due += 1;
    const going = this.held.splice(0, due);
    if (this.held.length) this.wheel.set(this, this.held[0]!.at);
    for (const { item } of going) this.pass(item, now);
  }

  stop(): void {
    this.wheel.clear(this);
    this.held.length = 0;
  }
}

function byteLength(data: OutgoingMessage): number {
  if (data instanceof FixedMessage) return data.payload.length;
  return typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
}

/** `transport` with each client's messages held by its links (created per connection by `linksFor`). */
export function aboveStream(
  transport: Transport,
  links: () => { up?: Link; down?: Link },
  wheel: TimerWheel,
): Transport {
  return {
    open(events: TransportEvents, options?: OpenOptions): TransportConnection {
      const { up: upLink, down: downLink } = links();
      let ended = false;
      const down = downLink
        ? new MessageQueue<Buffer>(downLink, wheel, (data, at) => !ended && events.onMessage(data, at))
        : undefined;
      const inner = transport.open(
        {
          onOpen: () => events.onOpen(),
          onMessage(data, receivedAt) {
            // The transport's buffer is valid during this call only: a held message is a copy.
            if (down) down.offer(Buffer.from(data), data.length);
            else events.onMessage(data, receivedAt);
          },
          onEnd(end: TransportEnd) {
            ended = true;
            up?.stop();
            down?.stop();
            events.onEnd(end);
          },
        },
        options,
      );
      const up = upLink
        ? new MessageQueue<OutgoingMessage>(upLink, wheel, (data) => !ended && inner.send(data))
        : undefined;
      return {
        send(data) {
          if (ended) return false;
          if (!up) return inner.send(data);
          up.offer(
            typeof data === "string" || data instanceof FixedMessage ? data : Uint8Array.prototype.slice.call(data),
            byteLength(data),
          );
          return true;
        },
        close(timeoutMs) {
          up?.stop();
          down?.stop();
          return inner.close(timeoutMs);
        },
      };
    },
  };
}
