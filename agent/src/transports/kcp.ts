import { KCP_MAX_FRAGMENTS, KCP_OVERHEAD } from "@throng/protocol/kcp-modes";
import { diff, KcpReceiver } from "./kcp-receive";
import { growSegment, releaseSegment, SegmentRing, takeSegment, type Segment } from "./kcp-segments";

/**
 * KCP, the ARQ protocol of skywind3000/kcp and xtaci/kcp-go, written from its specification: a pure state machine
 * with no socket and no clock. Its host hands it datagrams and the time, and gets datagrams to send and whole
 * messages (or stream bytes) back; kcp-transport.ts is the socket side. Every segment is a 24-byte little-endian
 * header (conv u32, cmd u8, frg u8, wnd u16, ts u32, sn u32, una u32, len u32) and `len` bytes of data, several to
 * a datagram up to the MTU.
 *
 * Where the specification leaves a choice, this does what kcp-go v5 does, the implementation servers run: an RTO
 * expiry adds the current RTO (half of it in nodelay mode) to the segment's; a segment later ones were acknowledged
 * past goes again at the next flush that sends nothing new ("early retransmit"); a datagram whose ACKs move the
 * window, or reach the fast-retransmit count, is answered by a flush at once, not at the next interval.
 */

export const CMD_PUSH = 81;
export const CMD_ACK = 82;
/** Window probe: "tell me your window" (sent while the peer's window is 0), and its answer. */
export const CMD_WASK = 83;
export const CMD_WINS = 84;

const RTO_NODELAY_MIN_MS = 30;
const RTO_MIN_MS = 100;
const RTO_INITIAL_MS = 200;
const RTO_MAX_MS = 60_000;
/** A segment sent this many times, the last unacknowledged past its RTO too, means the peer is gone. */
export const DEAD_LINK_SENDS = 20;
const SSTHRESH_INIT = 2;
const SSTHRESH_MIN = 2;
const PROBE_INIT_MS = 500;
const PROBE_LIMIT_MS = 120_000;
const ASK_SEND = 1;
const ASK_TELL = 2;

/** One connection's settings (kcp-modes.ts resolves a plan's into these). */
export interface KcpConfig {
  conv: number;
  mtu: number;
  sendWindow: number;
  receiveWindow: number;
  nodelay: boolean;
  intervalMs: number;
  resend: number;
  nc: boolean;
  stream: boolean;
  ackNoDelay: boolean;
}

/** What the state machine calls back. Both get views of buffers it reuses: valid during the call only. */
export interface KcpHost {
  /** One datagram to send: the first `size` bytes of `buffer`. */
  output(buffer: Buffer, size: number): void;
  /** Message mode: one whole message. Stream mode: the next bytes of the stream. */
  deliver(data: Buffer): void;
}

/** What KCP did, summed over every connection that shares the object (one per engine): read and reset each second. */
export class KcpStats {
  /** Segments sent again, for any reason: fastRetransmits + rtoExpiries. */
  retransmits = 0;
  /** Sent again before their RTO because later segments were acknowledged (fast and early retransmit). */
  fastRetransmits = 0;
  /** Sent again because their RTO expired. */
  rtoExpiries = 0;
  datagramsSent = 0;
  datagramsReceived = 0;
  /** UDP payload bytes: headers, ACKs, probes and retransmissions included. */
  wireBytesSent = 0;
  wireBytesReceived = 0;
  /** What the application gave KCP to send, and what KCP delivered to it, each byte once. */
  payloadBytesSent = 0;
  payloadBytesReceived = 0;

  reset(): void {
    this.retransmits = this.fastRetransmits = this.rtoExpiries = 0;
    this.datagramsSent = this.datagramsReceived = this.wireBytesSent = this.wireBytesReceived = 0;
    this.payloadBytesSent = this.payloadBytesReceived = 0;
  }
}

/** A message too big for one KCP message (its 255 fragments). */
export class KcpMessageSizeError extends Error {
  readonly code = "ERR_KCP_MESSAGE_SIZE";
}

/** Why a segment goes out in a flush. */
enum Due {
  Not,
  First,
  Fast,
  Expired,
}

/** The datagram being written by a flush (its size never exceeds the largest MTU). */
let scratch = Buffer.allocUnsafe(2048);

export class Kcp {
  private readonly mss: number;
  private sndUna = 0;
  private sndNxt = 0;
  private srtt = 0;
  private rttVar = 0;
  private rto = RTO_INITIAL_MS;
  private readonly minRto: number;
  private remoteWindow: number;
  private cwnd = 1;
  private ssthresh = SSTHRESH_INIT;
  private incr = 0;
  private probe = 0;
  private probeAt = 0;
  private probeWait = 0;
  private readonly sendQueue = new SegmentRing();
  private readonly sendBuffer = new SegmentRing();
  private readonly receiver: KcpReceiver;
  /** Made once: what the receiver hands over goes to the host, counted. */
  private readonly handOver = (data: Buffer) => {
    this.stats.payloadBytesReceived += data.length;
    this.host.deliver(data);
  };
  /** The earliest RTO of a segment in flight, as of the last flush (Infinity when none). */
  private nextResendAt = Infinity;
  /** A segment in flight had later ones acknowledged: the next interval flush may resend it early. */
  private fastAcked = false;
  /** A segment went DEAD_LINK_SENDS times and its last RTO expired unacknowledged. */
  dead = false;

  constructor(
    private readonly config: KcpConfig,
    private readonly host: KcpHost,
    private readonly stats: KcpStats,
    /** Interval flushes fall on anchor + k · interval. */
    private readonly anchor: number,
  ) {
    this.mss = config.mtu - KCP_OVERHEAD;
    this.minRto = config.nodelay ? RTO_NODELAY_MIN_MS : RTO_MIN_MS;
    this.remoteWindow = config.receiveWindow;
    this.incr = this.mss;
    this.receiver = new KcpReceiver(config.receiveWindow, config.stream);
    if (scratch.length < config.mtu) scratch = Buffer.allocUnsafe(config.mtu);
  }

  /** Segments sent and not yet acknowledged, plus those waiting for the window. */
  get waiting(): number {
    return this.sendBuffer.size + this.sendQueue.size;
  }

  /** Queues `payload`'s first `total` bytes (one message, or more stream bytes) for the next flush. Nothing is sent for none. */
  send(payload: Uint8Array, total = payload.length): void {
    let offset = 0;
    if (total === 0) return;
    const { mss } = this;
    if (this.config.stream) {
      // Stream mode fills the last segment not yet sent before starting another.
      const last = this.sendQueue.last();
      if (last && last.len < mss) {
        offset = Math.min(total, mss - last.len);
        growSegment(last, mss);
        last.data.set(offset === payload.length ? payload : payload.subarray(0, offset), last.len);
        last.len += offset;
      }
    }
    const rest = total - offset;
    const count = rest === 0 ? 0 : Math.ceil(rest / mss);
    if (!this.config.stream && count > KCP_MAX_FRAGMENTS) {
      throw new KcpMessageSizeError(
        `a message of ${total} bytes needs ${count} KCP fragments, over the 255 one message can have (mtu ${this.config.mtu}): raise mtu or send smaller messages`,
      );
    }
    this.stats.payloadBytesSent += total;
    for (let i = 0; i < count; i += 1) {
      const size = Math.min(mss, total - offset);
      const segment = takeSegment(size);
      // A whole payload in one segment, the common case, needs no view of it.
      segment.data.set(offset === 0 && size === payload.length ? payload : payload.subarray(offset, offset + size), 0);
      segment.len = size;
      segment.frg = this.config.stream ? 0 : count - i - 1;
      this.sendQueue.push(segment);
      offset += size;
    }
  }

  /**
   * One datagram from the peer. Returns false when it is not this conversation's or is malformed (what came
   * before the fault is kept, as KCP does). Delivers what it completes, then flushes at once when its ACKs moved
   * the window or call for a fast retransmit, or when the ACKs owed fill a datagram (or ackNoDelay is set).
   */
  input(datagram: Buffer, now: number): boolean {
    this.stats.datagramsReceived += 1;
    this.stats.wireBytesReceived += datagram.length;
    const unaBefore = this.sndUna;
    let flush = false;
    let ackTs = -1;
    let at = 0;
    let good = datagram.length >= KCP_OVERHEAD;
    while (good && datagram.length - at >= KCP_OVERHEAD) {
      const cmd = datagram[at + 4]!;
      const len = datagram.readUInt32LE(at + 20);
      if (
        datagram.readUInt32LE(at) !== this.config.conv ||
        cmd < CMD_PUSH ||
        cmd > CMD_WINS ||
        datagram.length - at - KCP_OVERHEAD < len
      ) {
        good = false;
        break;
      }
      const frg = datagram[at + 5]!;
      const ts = datagram.readUInt32LE(at + 8);
      const sn = datagram.readUInt32LE(at + 12);
      this.remoteWindow = datagram.readUInt16LE(at + 6);
      if (this.dropAcknowledged(datagram.readUInt32LE(at + 16))) flush = true;
      if (cmd === CMD_ACK) {
        this.markAcked(sn);
        if (this.countFastAck(sn, ts)) flush = true;
        ackTs = ts;
      } else if (cmd === CMD_PUSH) this.receiver.push(sn, ts, frg, datagram, at + KCP_OVERHEAD, len);
      else if (cmd === CMD_WASK) this.probe |= ASK_TELL;
      at += KCP_OVERHEAD + len;
    }
    if (ackTs >= 0 && diff(now >>> 0, ackTs) >= 0) this.updateRto(diff(now >>> 0, ackTs));
    if (diff(this.sndUna, unaBefore) > 0) this.growWindow();
    // A queue that was full re-advertises its window once it has room.
    if (this.receiver.deliverReady(this.handOver)) this.probe |= ASK_TELL;
    const owed = this.receiver.acks.length / 2;
    if (flush) this.flush(now);
    else if (owed >= this.config.mtu / KCP_OVERHEAD || (this.config.ackNoDelay && owed > 0)) this.flushControl(now);
    return good;
  }

  /** Everything due: ACKs owed, window probes, new segments the window lets out, fast, early and RTO retransmissions. */
  flush(now: number): void {
    let at = this.writeControl(now);
    const cwnd = this.window();
    let fresh = 0;
    while (diff(this.sndNxt, this.sndUna + cwnd) < 0 && this.sendQueue.size > 0) {
      const segment = this.sendQueue.shift()!;
      segment.sn = this.sndNxt;
      this.sndNxt = (this.sndNxt + 1) >>> 0;
      this.sendBuffer.push(segment);
      fresh += 1;
    }
    const wnd = this.receiver.unusedWindow();
    let fast = 0;
    let expired = 0;
    let nextResendAt = Infinity;
    let fastAcked = false;
    for (let i = 0; i < this.sendBuffer.size; i += 1) {
      const segment = this.sendBuffer.at(i);
      if (segment.acked) continue;
      const due = this.due(segment, now, fresh);
      if (due === Due.Fast) fast += 1;
      else if (due === Due.Expired) expired += 1;
      if (due !== Due.Not) {
        segment.xmit += 1;
        segment.ts = now >>> 0;
        at = this.room(at, KCP_OVERHEAD + segment.len);
        at = writeHeader(
          at,
          this.config.conv,
          CMD_PUSH,
          segment.frg,
          wnd,
          segment.ts,
          segment.sn,
          this.receiver.rcvNxt,
          segment.len,
        );
        segment.data.copy(scratch, at, 0, segment.len);
        at += segment.len;
      }
      if (segment.fastAck > 0) fastAcked = true;
      if (segment.resendAt < nextResendAt) nextResendAt = segment.resendAt;
    }
    if (at > 0) this.emit(at);
    this.nextResendAt = nextResendAt;
    this.fastAcked = fastAcked;
    this.stats.fastRetransmits += fast;
    this.stats.rtoExpiries += expired;
    this.stats.retransmits += fast + expired;
    if (!this.config.nc) this.shrinkWindow(fast, expired, cwnd);
  }

  /**
   * Whether `segment` goes out in this flush, and why; sets its next RTO when it does. A segment sent
   * DEAD_LINK_SENDS times that is due again instead marks the link dead.
   */
  private due(segment: Segment, now: number, fresh: number): Due {
    const { resend } = this.config;
    let due = Due.Not;
    if (segment.xmit === 0) due = Due.First;
    // Fast retransmit, or early when nothing new goes out: at most once per RTO (fastAck -1 until it expires).
    else if (resend > 0 && (segment.fastAck >= resend || (segment.fastAck > 0 && fresh === 0))) due = Due.Fast;
    else if (now >= segment.resendAt) due = Due.Expired;
    if (due === Due.Not) return due;
    if (segment.xmit >= DEAD_LINK_SENDS) {
      this.dead = true;
      return Due.Not;
    }
    if (due === Due.Expired) {
      segment.rto = Math.min(RTO_MAX_MS, segment.rto + (this.config.nodelay ? this.rto >> 1 : this.rto));
      segment.fastAck = 0;
    } else {
      segment.rto = this.rto;
      if (due === Due.Fast) segment.fastAck = -1;
    }
    segment.resendAt = now + segment.rto;
    return due;
  }

  /**
   * When the host should call flush next (ms), or Infinity when nothing is owed: the earliest RTO in flight, and the
   * next interval tick while ACKs, a window probe or an early retransmit wait. An idle connection needs no timer.
   */
  wakeAt(now: number): number {
    if (this.dead) return Infinity;
    const interval = this.config.intervalMs;
    const tickWanted =
      this.receiver.acks.length > 0 ||
      this.probe !== 0 ||
      this.remoteWindow === 0 ||
      this.fastAcked ||
      this.windowHasRoom();
    const tick = tickWanted ? this.anchor + (Math.floor((now - this.anchor) / interval) + 1) * interval : Infinity;
    return Math.min(tick, this.nextResendAt);
  }

  /** Segments wait to be sent and the window would let one out (it opened without the ACK that flushes at once). */
  private windowHasRoom(): boolean {
    return this.sendQueue.size > 0 && diff(this.sndNxt, this.sndUna + this.window()) < 0;
  }

  /** What may be in flight: the send window, the peer's receive window and, with congestion control, cwnd. */
  private window(): number {
    const open = Math.min(this.config.sendWindow, this.remoteWindow);
    return this.config.nc ? open : Math.min(open, this.cwnd);
  }

  /** Gives every segment it holds back to the pool; the connection is over. */
  release(): void {
    this.sendQueue.drain(releaseSegment);
    this.sendBuffer.drain(releaseSegment);
    this.receiver.release();
    this.nextResendAt = Infinity;
  }

  /** ACKs and probes only (the ACK clock, ackNoDelay): no data moves. */
  private flushControl(now: number): void {
    const at = this.writeControl(now);
    if (at > 0) this.emit(at);
  }

  /** Writes the ACKs owed and the window probes into the datagram; returns where data goes next. */
  private writeControl(now: number): number {
    const wnd = this.receiver.unusedWindow();
    const una = this.receiver.rcvNxt;
    const { conv } = this.config;
    const acks = this.receiver.acks;
    let at = 0;
    for (let i = 0; i < acks.length; i += 2) {
      // An ACK below rcvNxt says nothing una does not (a retransmission's); the last one still goes, for its timestamp.
      if (diff(acks[i]!, una) < 0 && i !== acks.length - 2) continue;
      at = this.room(at, KCP_OVERHEAD);
      at = writeHeader(at, conv, CMD_ACK, 0, wnd, acks[i + 1]!, acks[i]!, una, 0);
    }
    acks.length = 0;
    if (this.remoteWindow === 0) {
      // The peer's window is shut: ask for it after 500 ms, then half as long again each time, up to 2 minutes.
      if (this.probeWait === 0) {
        this.probeWait = PROBE_INIT_MS;
        this.probeAt = now + this.probeWait;
      } else if (now >= this.probeAt) {
        this.probeWait = Math.min(PROBE_LIMIT_MS, Math.max(this.probeWait, PROBE_INIT_MS) * 1.5);
        this.probeAt = now + this.probeWait;
        this.probe |= ASK_SEND;
      }
    } else this.probeWait = this.probeAt = 0;
    if (this.probe & ASK_SEND) at = writeHeader(this.room(at, KCP_OVERHEAD), conv, CMD_WASK, 0, wnd, 0, 0, una, 0);
    if (this.probe & ASK_TELL) at = writeHeader(this.room(at, KCP_OVERHEAD), conv, CMD_WINS, 0, wnd, 0, 0, una, 0);
    this.probe = 0;
    return at;
  }

  /** Where `bytes` more go: at `at`, or at 0 after sending what is written when they would pass the MTU. */
  private room(at: number, bytes: number): number {
    if (at + bytes <= this.config.mtu) return at;
    this.emit(at);
    return 0;
  }

  private emit(size: number): void {
    this.stats.datagramsSent += 1;
    this.stats.wireBytesSent += size;
    this.host.output(scratch, size);
  }

  /** The peer has everything before `una`: those segments leave the send buffer. */
  private dropAcknowledged(una: number): boolean {
    const buffer = this.sendBuffer;
    let dropped = false;
    for (let front = buffer.peek(); front && diff(una, front.sn) > 0; front = buffer.peek()) {
      releaseSegment(buffer.shift()!);
      dropped = true;
    }
    if (dropped) this.settleUna();
    return dropped;
  }

  /** One segment acknowledged: the buffer holds sndUna … sndNxt − 1 in order, so it is found by its offset. */
  private markAcked(sn: number): void {
    const offset = diff(sn, this.sndUna);
    if (offset < 0 || diff(sn, this.sndNxt) >= 0) return;
    this.sendBuffer.at(offset).acked = true;
    if (offset === 0) this.settleUna();
  }

  /** Acknowledged segments at the front leave too; sndUna is the first still unacknowledged. */
  private settleUna(): void {
    const buffer = this.sendBuffer;
    while (buffer.peek()?.acked) releaseSegment(buffer.shift()!);
    this.sndUna = buffer.peek()?.sn ?? this.sndNxt;
    if (buffer.size === 0) this.nextResendAt = Infinity;
  }

  /** An ACK of `sn` passes every segment before it that was sent no later: true when one reaches the fast-retransmit count. */
  private countFastAck(sn: number, ts: number): boolean {
    const { resend } = this.config;
    if (diff(sn, this.sndUna) < 0 || diff(sn, this.sndNxt) >= 0) return false;
    let due = false;
    for (let i = 0; i < this.sendBuffer.size; i += 1) {
      const segment = this.sendBuffer.at(i);
      if (diff(sn, segment.sn) <= 0) break;
      if (segment.acked || segment.fastAck < 0 || diff(segment.ts, ts) > 0) continue;
      segment.fastAck += 1;
      this.fastAcked = true;
      if (resend > 0 && segment.fastAck >= resend) due = true;
    }
    return due;
  }

  /** RFC 6298's smoothed RTT and variance; the RTO is at least one interval above the smoothed RTT. */
  private updateRto(rtt: number): void {
    if (this.srtt === 0) {
      this.srtt = rtt;
      this.rttVar = rtt >> 1;
    } else {
      const delta = Math.abs(rtt - this.srtt);
      this.rttVar = (3 * this.rttVar + delta) >> 2;
      this.srtt = Math.max(1, (7 * this.srtt + rtt) >> 3);
    }
    const rto = this.srtt + Math.max(this.config.intervalMs, 4 * this.rttVar);
    this.rto = Math.min(RTO_MAX_MS, Math.max(this.minRto, rto));
  }

  /** Slow start, then additive increase, while the window moves and is below the peer's. */
  private growWindow(): void {
    if (this.config.nc || this.cwnd >= this.remoteWindow) return;
    const { mss } = this;
    if (this.cwnd < this.ssthresh) {
      this.cwnd += 1;
      this.incr += mss;
    } else {
      this.incr = Math.max(this.incr, mss);
      this.incr += Math.floor((mss * mss) / this.incr) + Math.floor(mss / 16);
      if ((this.cwnd + 1) * mss <= this.incr) this.cwnd = Math.ceil(this.incr / mss);
    }
    if (this.cwnd > this.remoteWindow) {
      this.cwnd = this.remoteWindow;
      this.incr = this.remoteWindow * mss;
    }
  }

  /** After a flush that retransmitted: halve the threshold (fast), or start again from one segment (RTO). */
  private shrinkWindow(fast: number, expired: number, cwnd: number): void {
    if (fast > 0) {
      this.ssthresh = Math.max(diff(this.sndNxt, this.sndUna) >> 1, SSTHRESH_MIN);
      this.cwnd = this.ssthresh + this.config.resend;
      this.incr = this.cwnd * this.mss;
    }
    if (expired > 0) {
      this.ssthresh = Math.max(cwnd >> 1, SSTHRESH_MIN);
      this.cwnd = 1;
      this.incr = this.mss;
    }
  }
}

/** One segment header at `at` of the datagram being written; returns where its data goes. */
function writeHeader(
  at: number,
  conv: number,
  cmd: number,
  frg: number,
  wnd: number,
  ts: number,
  sn: number,
  una: number,
  len: number,
): number {
  scratch.writeUInt32LE(conv, at);
  scratch[at + 4] = cmd;
  scratch[at + 5] = frg;
  scratch.writeUInt16LE(wnd, at + 6);
  scratch.writeUInt32LE(ts, at + 8);
  scratch.writeUInt32LE(sn, at + 12);
  scratch.writeUInt32LE(una, at + 16);
  scratch.writeUInt32LE(len, at + 20);
  return at + KCP_OVERHEAD;
}
