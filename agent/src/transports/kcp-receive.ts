import { releaseSegment, SegmentRing, takeSegment, type Segment } from "./kcp-segments";

/** Signed distance between two 32-bit sequence numbers or timestamps, as the wire's wrap-around reads it. */
export const diff = (later: number, earlier: number) => (later - earlier) | 0;

/** A multi-fragment message being put together before it is handed over. */
let assembly = Buffer.allocUnsafe(4096);

/**
 * KCP's receiving half (kcp.ts holds the rest): the segments that came in order, those ahead of a gap, the ACKs
 * owed, and the hand-over of whole messages (message mode) or stream bytes in order.
 */
export class KcpReceiver {
  /** The next sn expected in order; every header's una. */
  rcvNxt = 0;
  /** (sn, ts) pairs of segments received and not yet acknowledged. */
  readonly acks: number[] = [];
  /** In order, waiting to make a whole message (message mode: its other fragments). */
  private readonly queue = new SegmentRing();
  /** Ahead of rcvNxt, by sn: empty unless datagrams were lost or reordered. */
  private readonly ahead: Segment[] = [];

  constructor(
    private readonly window: number,
    private readonly stream: boolean,
  ) {}

  /** Free room in the receive window, advertised in every header's wnd. */
  unusedWindow(): number {
    return Math.max(0, this.window - this.queue.size);
  }

  /** A PUSH: acknowledged when inside the window, kept (a copy) when new, then whatever is now in order moves on. */
  push(sn: number, ts: number, frg: number, datagram: Buffer, from: number, len: number): void {
    if (diff(sn, this.rcvNxt + this.window) >= 0) return;
    this.acks.push(sn, ts);
    if (diff(sn, this.rcvNxt) < 0) return;
    const ahead = this.ahead;
    if (sn === this.rcvNxt && ahead.length === 0 && this.queue.size < this.window) {
      // In order with nothing held back: the common case goes straight to the queue.
      this.queue.push(copySegment(sn, frg, datagram, from, len));
      this.rcvNxt = (this.rcvNxt + 1) >>> 0;
      return;
    }
    let i = ahead.length;
    while (i > 0 && diff(ahead[i - 1]!.sn, sn) > 0) i -= 1;
    if (i > 0 && ahead[i - 1]!.sn === sn) return;
    ahead.splice(i, 0, copySegment(sn, frg, datagram, from, len));
    this.moveInOrder();
  }

  /**
   * Hands every whole message (stream mode: every segment) in order to `deliver`, a view valid during the call.
   * True when this opened a window that was full: the peer must be told (WINS).
   */
  deliverReady(deliver: (data: Buffer) => void): boolean {
    const queue = this.queue;
    const wasFull = queue.size >= this.window;
    for (let first = queue.peek(); first; first = queue.peek()) {
      const parts = this.stream ? 1 : first.frg + 1;
      if (queue.size < parts) break;
      if (parts === 1) {
        queue.shift();
        deliver(first.data.subarray(0, first.len));
        releaseSegment(first);
      } else {
        let total = 0;
        for (let i = 0; i < parts; i += 1) total += queue.at(i).len;
        if (assembly.length < total) assembly = Buffer.allocUnsafe(Math.max(total, assembly.length * 2));
        let at = 0;
        for (let i = 0; i < parts; i += 1) {
          const part = queue.shift()!;
          part.data.copy(assembly, at, 0, part.len);
          at += part.len;
          releaseSegment(part);
        }
        deliver(assembly.subarray(0, total));
      }
      this.moveInOrder();
    }
    return wasFull && queue.size < this.window;
  }

  release(): void {
    this.queue.drain(releaseSegment);
    for (const segment of this.ahead) releaseSegment(segment);
    this.ahead.length = 0;
  }

  private moveInOrder(): void {
    const ahead = this.ahead;
    while (ahead.length > 0 && ahead[0]!.sn === this.rcvNxt && this.queue.size < this.window) {
      this.queue.push(ahead.shift()!);
      this.rcvNxt = (this.rcvNxt + 1) >>> 0;
    }
  }
}

function copySegment(sn: number, frg: number, datagram: Buffer, from: number, len: number): Segment {
  const segment = takeSegment(len);
  datagram.copy(segment.data, 0, from, from + len);
  segment.sn = sn;
  segment.frg = frg;
  segment.len = len;
  return segment;
}
