/**
 * KCP's segments and the queues that hold them, kept apart from the protocol (kcp.ts) so its state machine reads as
 * the specification does. Segments come from one pool per process and go back to it once acknowledged or
 * delivered: a segment object and its data buffer per message sent or received would be garbage at every ping.
 */

/** One KCP segment in a send or receive queue; the wire header is written from it (kcp.ts). */
export class Segment {
  sn = 0;
  frg = 0;
  /** When it was last sent (ms), echoed back in its ACK for the round trip. */
  ts = 0;
  len = 0;
  /** Send side: when it goes again unacknowledged, its current RTO, times sent, later segments acknowledged. */
  resendAt = 0;
  rto = 0;
  xmit = 0;
  /** Later segments acknowledged since it was sent; -1 once fast-retransmitted, until its RTO expires. */
  fastAck = 0;
  acked = false;
  data: Buffer;

  constructor(capacity: number) {
    this.data = Buffer.allocUnsafe(capacity);
  }
}

/** The smallest data buffer a new segment gets: small messages then share the pool's slabs. */
const MIN_SEGMENT_BYTES = 64;
/** Segments kept for reuse at most; a burst beyond it is left to the collector. */
const MAX_POOLED = 1 << 16;
const pool: Segment[] = [];

/** A segment with room for `bytes` of data, its fields reset. */
export function takeSegment(bytes: number): Segment {
  const segment = pool.pop();
  if (!segment) return new Segment(Math.max(bytes, MIN_SEGMENT_BYTES));
  if (segment.data.length < bytes) segment.data = Buffer.allocUnsafe(bytes);
  segment.len = segment.xmit = segment.fastAck = segment.rto = segment.resendAt = 0;
  segment.acked = false;
  return segment;
}

export function releaseSegment(segment: Segment): void {
  if (pool.length < MAX_POOLED) pool.push(segment);
}

/** Makes sure `segment` can hold `bytes` of data, keeping what it holds. */
export function growSegment(segment: Segment, bytes: number): void {
  if (segment.data.length >= bytes) return;
  const grown = Buffer.allocUnsafe(bytes);
  segment.data.copy(grown, 0, 0, segment.len);
  segment.data = grown;
}

/** A ring of segments: push at the back, shift at the front, index in between; grows by doubling, never shrinks. */
export class SegmentRing {
  private items: (Segment | undefined)[] = new Array<Segment | undefined>(4);
  private head = 0;
  size = 0;

  push(segment: Segment): void {
    if (this.size === this.items.length) this.grow();
    this.items[(this.head + this.size) & (this.items.length - 1)] = segment;
    this.size += 1;
  }

  shift(): Segment | undefined {
    if (this.size === 0) return undefined;
    const segment = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & (this.items.length - 1);
    this.size -= 1;
    return segment;
  }

  /** The i-th segment from the front (0 ≤ i < size). */
  at(i: number): Segment {
    return this.items[(this.head + i) & (this.items.length - 1)]!;
  }

  peek(): Segment | undefined {
    return this.size === 0 ? undefined : this.items[this.head];
  }

  last(): Segment | undefined {
    return this.size === 0 ? undefined : this.at(this.size - 1);
  }

  /** Empties the ring, handing every segment to `release`. */
  drain(release: (segment: Segment) => void): void {
    for (let segment = this.shift(); segment; segment = this.shift()) release(segment);
  }

  private grow(): void {
    const grown = new Array<Segment | undefined>(this.items.length * 2);
    for (let i = 0; i < this.size; i += 1) grown[i] = this.at(i);
    this.items = grown;
    this.head = 0;
  }
}
