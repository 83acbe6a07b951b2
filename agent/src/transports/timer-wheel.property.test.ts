import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { mulberry32 as seeded } from "../engine/seeded-random";
import { TimerWheel, wheelTimer, type WheelTimer } from "./timer-wheel";

const REVOLUTION = 65_536;

interface Tracked {
  timer: WheelTimer;
  /** The time it was last set for and when that was; undefined while it is not set. */
  dueAt: number | undefined;
  setAt: number;
  runs: number;
  /** Set from its own run with this probability (a client's next ping). */
  again: boolean;
}

/**
 * A delay from a mix: the same millisecond, the next few, seconds, around one revolution, several, and the past.
 * Without `far`, none beyond one revolution (a far timer wakes the wheel at every revolution's end).
 */
function delay(random: () => number, far: boolean): number {
  const pick = far ? random() : random() * 0.75;
  if (pick < 0.3) return random() * 5;
  if (pick < 0.6) return random() * 2_000;
  if (pick < 0.75) return REVOLUTION - 5_000 + random() * 10_000;
  if (pick < 0.85) return random() * 4 * REVOLUTION;
  if (pick < 0.9) return -random() * 50;
  return Math.floor(random() * 20);
}

/** Time to let pass: mostly a few ms, sometimes seconds, now and then most of a revolution. */
function pause(random: () => number): number {
  const pick = random();
  if (pick < 0.7) return Math.floor(random() * 20);
  if (pick < 0.95) return Math.floor(random() * 500);
  return Math.floor(random() * 30_000);
}

function runSeed(seed: number, far: boolean): { runs: number; sets: number } {
  const random = seeded(seed);
  // Start a little before a revolution boundary of performance.now().
  vi.advanceTimersByTime(REVOLUTION * (2 + (seed % 3)) - Math.floor(random() * 100) - performance.now());
  const wheel = new TimerWheel();
  const failures: string[] = [];
  let lastTick = -Infinity;
  let runs = 0;
  let sets = 0;
  const set = (entry: Tracked, atMs: number) => {
    entry.dueAt = atMs;
    entry.setAt = performance.now();
    sets += 1;
    wheel.set(entry.timer, atMs);
  };
  const timers: Tracked[] = Array.from({ length: 300 }, (_, i) => {
    const entry: Tracked = {
      dueAt: undefined,
      setAt: 0,
      runs: 0,
      again: i % 3 === 0,
      timer: wheelTimer(() => {
        const now = performance.now();
        runs += 1;
        entry.runs += 1;
        if (entry.dueAt === undefined) failures.push(`timer ${i} ran while not set (at ${now})`);
        else {
          const from = Math.max(entry.dueAt, entry.setAt);
          if (now < entry.dueAt) failures.push(`timer ${i} ran at ${now}, before its time ${entry.dueAt}`);
          if (now - from >= 2) failures.push(`timer ${i} ran at ${now}, ${now - from} ms after ${from}`);
          // Set for a later ms than the one it was set in (that one's slot may have run already, and then it
          // runs at the next wakeup like a time past): slots run in order, so the ms it was due in never goes back.
          if (Math.ceil(entry.dueAt) > Math.floor(entry.setAt)) {
            const tick = Math.ceil(entry.dueAt);
            if (tick < lastTick)
              failures.push(`timer ${i} (due ${entry.dueAt}) ran after a timer due in ms ${lastTick}`);
            lastTick = Math.max(lastTick, tick);
          }
        }
        entry.dueAt = undefined;
        if (entry.again && random() < 0.5) set(entry, now + delay(random, far));
      }),
    };
    return entry;
  });

  for (let step = 0; step < 3_000; step += 1) {
    for (let op = Math.floor(random() * 4); op > 0; op -= 1) {
      const entry = timers[Math.floor(random() * timers.length)]!;
      if (random() < 0.2) {
        entry.dueAt = undefined;
        wheel.clear(entry.timer);
      } else set(entry, performance.now() + delay(random, far));
    }
    vi.advanceTimersByTime(pause(random));
  }
  // Let everything still set come due: no timer is ever set further out than five revolutions.
  for (const entry of timers) entry.again = false;
  vi.advanceTimersByTime(5 * REVOLUTION);
  expect(failures.slice(0, 5)).toEqual([]);
  expect(timers.filter((entry) => entry.dueAt !== undefined).length).toBe(0);
  expect(vi.getTimerCount()).toBe(0);
  return { runs, sets };
}

describe("timer wheel, property: random timers over several revolutions of the clock", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] }));
  afterEach(() => vi.useRealTimers());

  it.each(Array.from({ length: 20 }, (_, i) => [i + 1, i % 2 === 0]))(
    "seed %i (far timers: %s): every set timer runs once, on time, in due order; a cleared one never",
    (seed, far) => {
      const { runs, sets } = runSeed(seed, far);
      // Every set either ran once, or was moved or cleared before it came due; a fair share ran.
      expect(runs).toBeGreaterThan(sets / 4);
    },
  );
});
