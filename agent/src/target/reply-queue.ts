/** A timer this close to its due time finishes with setImmediate, so a reply is sent within ~0.1 ms of it. */
const SPIN_MS = 2;

/**
 * Replies that wait (a reply delay, a stall), sent in the order they were queued, none before its due time. One
 * timer serves the queue's head. With a timer per reply, two replies due microseconds apart could swap (Node
 * orders timers by their duration, and the ones finishing on setImmediate by when they got there): a real server
 * does not reorder one connection's answers, and a movement test would count the swap as out of order.
 */
export class ReplyQueue {
  private dueAts: number[] = [];
  private sends: (() => void)[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;

  get empty(): boolean {
    return this.head === this.sends.length;
  }

  push(dueAt: number, send: () => void): void {
    this.dueAts.push(dueAt);
    this.sends.push(send);
    if (this.sends.length - this.head === 1) this.arm();
  }

  clear(): void {
    clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = this.immediate = undefined;
    this.dueAts = [];
    this.sends = [];
    this.head = 0;
  }

  private arm(): void {
    const remaining = this.dueAts[this.head]! - performance.now();
    if (remaining <= SPIN_MS) this.immediate = setImmediate(this.drain);
    else this.timer = setTimeout(this.drain, remaining - SPIN_MS);
  }

  private drain = (): void => {
    this.timer = this.immediate = undefined;
    const now = performance.now();
    // Bounded by the queue: each pass sends one reply or stops.
    while (!this.empty && this.dueAts[this.head]! <= now) {
      const send = this.sends[this.head]!;
      this.head += 1;
      send();
    }
    if (this.empty) {
      this.dueAts = [];
      this.sends = [];
      this.head = 0;
      return;
    }
    if (this.head > 4096) {
      this.dueAts = this.dueAts.slice(this.head);
      this.sends = this.sends.slice(this.head);
      this.head = 0;
    }
    this.arm();
  };
}
