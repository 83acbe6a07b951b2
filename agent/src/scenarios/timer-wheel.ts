/**
 * Many clients' timers on one Node timer. A setTimeout per client per ping made Node keep a timer list per
 * distinct duration (every client's next ping is due at its own fractional ms), and fired one callback per
 * wakeup; here timers sit in 1 ms slots and everything due is run from one wakeup, in due order.
 * Times are performance.now() milliseconds; a timer runs at the first whole millisecond at or after its time.
 *
 * Each slot is an intrusive doubly linked list through the timers themselves, so setting, moving and running a
 * timer allocates nothing: an array per slot lived a whole interval, survived the young-generation collections and
 * was copied and promoted by each of them (S1 at 19.5k clients scavenged 3–4 times a second, 15 ms each).
 */

export interface WheelTimer {
  /** The slot tick it is set for, or -1 when not set (the wheel keeps this). */
  tick: number;
  run(): void;
  /** The wheel's list links (its slot, or the far list); null when not set. */
  prev: WheelTimer | null;
  next: WheelTimer | null;
  list: number;
}

/** Slots cover 65.5 s ahead; timers further out wait in a list until the wheel comes round. */
const SLOT_BITS = 16;
const SLOTS = 1 << SLOT_BITS;
const MASK = SLOTS - 1;
/** The list index of timers beyond one revolution. */
const FAR = SLOTS;

/** A timer object to set and clear on a wheel (one per client, reused for every ping). */
export function wheelTimer(run: () => void): WheelTimer {
  return { tick: -1, run, prev: null, next: null, list: -1 };
}

export class TimerWheel {
  /** First and last timer of each slot's list, and of the far list at FAR. */
  private readonly heads: (WheelTimer | null)[] = new Array<WheelTimer | null>(SLOTS + 1).fill(null);
  private readonly tails: (WheelTimer | null)[] = new Array<WheelTimer | null>(SLOTS + 1).fill(null);
  /** The first tick not yet run. */
  private cursor = Math.floor(performance.now());
  /** Timers set and not yet run or cleared; at zero the Node timer is dropped so the process can exit. */
  private live = 0;
  private farCount = 0;
  private timer: NodeJS.Timeout | undefined;
  private armedTick = Infinity;
  private running = false;

  /** Sets (or moves) `timer` to run at `atMs`; a time already past runs at the next wakeup. */
  set(timer: WheelTimer, atMs: number): void {
    if (timer.tick === -1) this.live += 1;
    else this.unlink(timer);
    const tick = Math.max(this.cursor, Math.ceil(atMs));
    timer.tick = tick;
    this.append(timer, tick - this.cursor < SLOTS ? tick & MASK : FAR);
    if (!this.running && tick < this.armedTick) this.arm(tick);
  }

  /** Unsets `timer`. */
  clear(timer: WheelTimer): void {
    if (timer.tick === -1) return;
    this.unlink(timer);
    timer.tick = -1;
    this.live -= 1;
    if (this.live === 0) this.disarm();
  }

  private append(timer: WheelTimer, list: number): void {
    const tail = this.tails[list]!;
    timer.list = list;
    timer.prev = tail;
    timer.next = null;
    if (tail) tail.next = timer;
    else this.heads[list] = timer;
    this.tails[list] = timer;
    if (list === FAR) this.farCount += 1;
  }

  private unlink(timer: WheelTimer): void {
    const { list, prev, next } = timer;
    if (prev) prev.next = next;
    else this.heads[list] = next;
    if (next) next.prev = prev;
    else this.tails[list] = prev;
    timer.prev = timer.next = null;
    timer.list = -1;
    if (list === FAR) this.farCount -= 1;
  }

  private arm(tick: number): void {
    clearTimeout(this.timer);
    this.armedTick = tick;
    this.timer = setTimeout(this.onTimer, Math.max(0, tick - performance.now()));
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedTick = Infinity;
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.armedTick = Infinity;
    this.running = true;
    try {
      const now = Math.floor(performance.now());
      // Bounded by the elapsed milliseconds; a slot's list also runs timers set to its own tick while it drains.
      while (this.cursor <= now) {
        const index = this.cursor & MASK;
        for (let timer = this.heads[index]; timer !== null; timer = this.heads[index]) {
          this.unlink(timer!);
          timer!.tick = -1;
          this.live -= 1;
          timer!.run();
        }
        this.cursor += 1;
        if ((this.cursor & MASK) === 0) this.comeRound();
      }
    } finally {
      this.running = false;
    }
    if (this.live === 0) return this.disarm();
    const next = this.nextTick();
    if (next !== Infinity) this.arm(next);
  };

  /** A new revolution: far timers now within reach move into their slots. */
  private comeRound(): void {
    for (let timer = this.heads[FAR]!; timer !== null; ) {
      const next = timer.next;
      if (timer.tick - this.cursor < SLOTS) {
        this.unlink(timer);
        this.append(timer, timer.tick & MASK);
      }
      timer = next!;
    }
  }

  /** The next slot with timers in it this revolution, else the next revolution when far timers wait. */
  private nextTick(): number {
    const revolutionEnd = (this.cursor | MASK) + 1;
    for (let tick = this.cursor; tick < revolutionEnd; tick += 1) if (this.heads[tick & MASK] !== null) return tick;
    return this.farCount > 0 ? revolutionEnd : Infinity;
  }
}
