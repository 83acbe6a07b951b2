/**
 * Many clients' timers on one Node timer. A setTimeout per client per ping made Node keep a timer list per
 * distinct duration (every client's next ping is due at its own fractional ms), and fired one callback per
 * wakeup; here timers sit in 1 ms slots and everything due is run from one wakeup, in due order.
 * Times are performance.now() milliseconds; a timer runs at the first whole millisecond at or after its time.
 */

export interface WheelTimer {
  /** The slot tick it is set for, or -1 when not set (the wheel keeps this). */
  tick: number;
  run(): void;
}

/** Slots cover 65.5 s ahead; timers further out wait in a list until the wheel comes round. */
const SLOT_BITS = 16;
const SLOTS = 1 << SLOT_BITS;
const MASK = SLOTS - 1;

/** A timer object to set and clear on a wheel (one per client, reused for every ping). */
export function wheelTimer(run: () => void): WheelTimer {
  return { tick: -1, run };
}

export class TimerWheel {
  private slots: (WheelTimer[] | undefined)[] = new Array<WheelTimer[] | undefined>(SLOTS);
  private far: WheelTimer[] = [];
  /** The first tick not yet run. */
  private cursor = Math.floor(performance.now());
  /** Timers set and not yet run or cleared; at zero the Node timer is dropped so the process can exit. */
  private live = 0;
  private timer: NodeJS.Timeout | undefined;
  private armedTick = Infinity;
  private running = false;

  /** Sets (or moves) `timer` to run at `atMs`; a time already past runs at the next wakeup. */
  set(timer: WheelTimer, atMs: number): void {
    if (timer.tick === -1) this.live += 1;
    const tick = Math.max(this.cursor, Math.ceil(atMs));
    timer.tick = tick;
    if (tick - this.cursor < SLOTS) (this.slots[tick & MASK] ??= []).push(timer);
    else this.far.push(timer);
    if (!this.running && tick < this.armedTick) this.arm(tick);
  }

  /** Unsets `timer`; its slot entry is skipped when its tick comes. */
  clear(timer: WheelTimer): void {
    if (timer.tick === -1) return;
    timer.tick = -1;
    this.live -= 1;
    if (this.live === 0) this.reset();
  }

  private arm(tick: number): void {
    clearTimeout(this.timer);
    this.armedTick = tick;
    this.timer = setTimeout(this.onTimer, Math.max(0, tick - performance.now()));
  }

  private reset(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedTick = Infinity;
    if (!this.running) {
      this.slots = new Array<WheelTimer[] | undefined>(SLOTS);
      this.far = [];
    }
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.armedTick = Infinity;
    this.running = true;
    try {
      const now = Math.floor(performance.now());
      // Bounded by the elapsed milliseconds; each slot drains once more for timers set to its own tick.
      while (this.cursor <= now) {
        const index = this.cursor & MASK;
        for (let slot = this.slots[index]; slot !== undefined; slot = this.slots[index]) {
          this.slots[index] = undefined;
          for (const timer of slot) {
            if (timer.tick !== this.cursor) continue;
            timer.tick = -1;
            this.live -= 1;
            timer.run();
          }
        }
        this.cursor += 1;
        if ((this.cursor & MASK) === 0) this.comeRound();
      }
    } finally {
      this.running = false;
    }
    if (this.live === 0) return this.reset();
    const next = this.nextTick();
    if (next !== Infinity) this.arm(next);
  };

  /** A new revolution: far timers now within reach move into their slots. */
  private comeRound(): void {
    if (this.far.length === 0) return;
    const still: WheelTimer[] = [];
    for (const timer of this.far) {
      if (timer.tick === -1) continue;
      if (timer.tick - this.cursor < SLOTS) (this.slots[timer.tick & MASK] ??= []).push(timer);
      else still.push(timer);
    }
    this.far = still;
  }

  /** The next slot with timers in it this revolution, else the next revolution when far timers wait. */
  private nextTick(): number {
    const revolutionEnd = (this.cursor | MASK) + 1;
    for (let tick = this.cursor; tick < revolutionEnd; tick += 1) if (this.slots[tick & MASK] !== undefined) return tick;
    return this.far.length > 0 ? revolutionEnd : Infinity;
  }
}
