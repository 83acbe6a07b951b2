import { kcpSettings, type KcpSettings } from "@throng/protocol/kcp-modes";
import type { KcpTarget } from "@throng/protocol/plan";
import type { SnapshotCounters } from "@throng/protocol/snapshot";
import { TimerWheel, type WheelTimer } from "./timer-wheel";
import { createFramer, type Framer } from "./framing";
import { Kcp, KcpStats, type KcpHost } from "./kcp";
import {
  FixedMessage,
  type OpenOptions,
  type OutgoingMessage,
  type Transport,
  type TransportConnection,
  type TransportEnd,
  type TransportEvents,
} from "./transport";
import { openClientDatagrams, type DatagramHandlers, type DatagramSocket } from "./udp";

/**
 * KCP's socket side: one connected UDP socket per client on the agent's datagram path (udp.ts), the protocol in
 * kcp.ts, and its flushes on the engine's timer wheel (one timer object per connection, set only while KCP owes
 * something: an idle connection costs no wakeups). KCP has no handshake and no close: a connection is open once
 * its socket is connected, and a close waits (up to its timeout) until everything sent is acknowledged.
 */

const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

/** What every KCP connection of an engine shares: its timer wheel and the counters its snapshots carry. */
export interface KcpTransportOptions {
  wheel?: TimerWheel;
  stats?: KcpStats;
}

/** KCP's figures this second into a snapshot's counters, and the tally starts again from zero. */
export function takeKcpCounters(stats: KcpStats, counters: SnapshotCounters): void {
  writeKcpCounters([stats], counters);
  stats.reset();
}

/** The figures of several tallies (the rig's clients and each cohort's), summed into a snapshot's counters. */
export function writeKcpCounters(all: readonly KcpStats[], counters: SnapshotCounters): void {
  const sum = (pick: (stats: KcpStats) => number) => all.reduce((total, stats) => total + pick(stats), 0);
  counters.kcpRetransmits = sum((s) => s.retransmits);
  counters.kcpFastRetransmits = sum((s) => s.fastRetransmits);
  counters.kcpRtoExpiries = sum((s) => s.rtoExpiries);
  counters.kcpDatagramsSent = sum((s) => s.datagramsSent);
  counters.kcpDatagramsReceived = sum((s) => s.datagramsReceived);
  counters.kcpWireBytesSent = sum((s) => s.wireBytesSent);
  counters.kcpWireBytesReceived = sum((s) => s.wireBytesReceived);
  counters.kcpPayloadBytesSent = sum((s) => s.payloadBytesSent);
  counters.kcpPayloadBytesReceived = sum((s) => s.payloadBytesReceived);
}

/** Milliseconds on the clock KCP and the wheel share. */
const nowMs = () => Math.floor(performance.now());

/** Text to send, encoded into one reused buffer (KCP copies it into its segments); returns its byte length. */
let textBuffer = Buffer.allocUnsafe(4096);
function encodeText(text: string): number {
  if (textBuffer.length < text.length * 3) textBuffer = Buffer.allocUnsafe(text.length * 3);
  return textBuffer.write(text, "utf8");
}

enum State {
  Connecting,
  Open,
  Closing,
  Ended,
}

/** The link is dead: read as a timeout (transport.ts's causeOf), like a TCP connection that stopped answering. */
function deadLinkError(): Error {
  return Object.assign(new Error("KCP link dead: a segment went unacknowledged 20 times"), { code: "ETIMEDOUT" });
}

/** One client's KCP connection; itself its wheel timer, its socket's handlers and KCP's host. */
class KcpConnection implements TransportConnection, KcpHost, DatagramHandlers, WheelTimer {
  tick = -1;
  prev: WheelTimer | null = null;
  next: WheelTimer | null = null;
  list = -1;
  private state = State.Connecting;
  private readonly kcp: Kcp;
  private readonly socket: DatagramSocket;
  private readonly framer: Framer | undefined;
  private error: Error | undefined;
  /** When the datagram being read arrived: every message it completes was received then. */
  private receivedAt = 0.5;
  private forceClose: NodeJS.Timeout | undefined;
  private resolveEnded: (() => void) | undefined;
  private ended: Promise<void> | undefined;

  constructor(
    private readonly target: KcpTarget,
    settings: KcpSettings,
    private readonly wheel: TimerWheel,
    stats: KcpStats,
    private readonly events: TransportEvents,
    options: OpenOptions,
  ) {
    // kcp-go's Dial draws a random conversation per connection; a fixed one is the plan's.
    const conv = settings.conv ?? Math.floor(Math.random() * 0x1_0000_0000) >>> 0;
    this.kcp = new Kcp({ ...settings, conv }, this, options.kcpStats ?? stats, nowMs());
    this.framer = settings.stream && target.framing ? createFramer(target.framing) : undefined;
    const { host, port } = target;
    this.socket = openClientDatagrams(
      { host, port, ...(options.localAddress ? { localAddress: options.localAddress } : {}) },
      this,
      options.datagramStage,
    );
  }

  send(data: OutgoingMessage): boolean {
    if (this.state !== State.Open) return false;
    const { framer } = this;
    if (data instanceof FixedMessage)
      this.kcp.send(framer ? data.framed(this.target.framing, framer.encode) : data.payload);
    else if (framer)
      this.kcp.send(
        framer.encode(
          typeof data === "string" ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength),
        ),
      );
    else if (typeof data === "string") {
      const length = encodeText(data);
      this.kcp.send(textBuffer, length);
    } else this.kcp.send(data);
    // kcp-go without write delay: a write goes out at once, not at the next interval.
    this.kcp.flush(nowMs());
    this.settle();
    return true;
  }

  close(timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS): Promise<void> {
    this.ended ??=
      this.state === State.Ended ? Promise.resolve() : new Promise<void>((resolve) => (this.resolveEnded = resolve));
    if (this.state === State.Connecting) this.socket.close();
    else if (this.state === State.Open) {
      // What was sent is delivered first (a leave message), with the ACKs this side owes.
      this.state = State.Closing;
      this.kcp.flush(nowMs());
      if (this.kcp.waiting === 0) this.socket.close();
      else this.forceClose = setTimeout(() => this.socket.close(), timeoutMs);
    }
    return this.ended;
  }

  // DatagramHandlers: the socket.
  onOpen(): void {
    if (this.state !== State.Connecting) return;
    this.state = State.Open;
    this.events.onOpen();
  }

  onDatagram(datagram: Buffer, receivedAt: number): void {
    if (this.state === State.Ended) return;
    this.receivedAt = receivedAt;
    this.kcp.input(datagram, nowMs());
    this.settle();
  }

  onClose(error?: Error): void {
    if (this.state === State.Ended) return;
    const opened = this.state !== State.Connecting;
    this.state = State.Ended;
    clearTimeout(this.forceClose);
    this.wheel.clear(this);
    this.kcp.release();
    this.error ??= error;
    const end: TransportEnd = { opened };
    if (this.error) end.error = this.error;
    this.events.onEnd(end);
    this.resolveEnded?.();
  }

  // KcpHost: the protocol.
  output(buffer: Buffer, size: number): void {
    // KCP's datagram is in a buffer it reuses, and the socket may hold what it is given: a copy goes.
    if (this.state === State.Ended || this.state === State.Connecting) return;
    const datagram = Buffer.allocUnsafe(size);
    buffer.copy(datagram, 0, 0, size);
    this.socket.send(datagram);
  }

  deliver(data: Buffer): void {
    if (this.state === State.Ended) return;
    if (!this.framer) {
      this.events.onMessage(data, this.receivedAt);
      return;
    }
    try {
      this.framer.push(data, (message) => this.events.onMessage(message, this.receivedAt));
    } catch (cause) {
      this.fail(cause as Error);
    }
  }

  // WheelTimer: KCP's next flush is due.
  run(): void {
    if (this.state === State.Ended) return;
    this.kcp.flush(nowMs());
    this.settle();
  }

  /** After anything KCP did: a dead link ends the connection, a close waiting for ACKs ends once they came, and the timer follows KCP's next need. */
  private settle(): void {
    if (this.state === State.Ended) return;
    if (this.kcp.dead) {
      this.fail(deadLinkError());
      return;
    }
    if (this.state === State.Closing && this.kcp.waiting === 0) {
      this.socket.close();
      return;
    }
    const wakeAt = this.kcp.wakeAt(nowMs());
    if (wakeAt === Infinity) this.wheel.clear(this);
    else if (this.tick !== Math.ceil(wakeAt)) this.wheel.set(this, wakeAt);
  }

  private fail(error: Error): void {
    this.error ??= error;
    this.socket.close();
  }
}

/** KCP load transport: the plan's KCP settings resolved once, a connection per client on the engine's wheel. */
export function kcpTransport(target: KcpTarget, options: KcpTransportOptions = {}): Transport {
  const settings = kcpSettings(target);
  const wheel = options.wheel ?? new TimerWheel();
  const stats = options.stats ?? new KcpStats();
  return { open: (events, openOptions = {}) => new KcpConnection(target, settings, wheel, stats, events, openOptions) };
}
