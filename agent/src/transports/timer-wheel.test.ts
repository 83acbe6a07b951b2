import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TimerWheel, wheelTimer } from "./timer-wheel";

describe("timer wheel", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] }));
  afterEach(() => vi.useRealTimers());

  it("runs each timer once, never before its time, in due order, and not once cleared", () => {
    const wheel = new TimerWheel();
    const ran: [string, number][] = [];
    const at = (name: string) => wheelTimer(() => ran.push([name, performance.now()]));
    const start = performance.now();
    const late = at("late");
    const early = at("early");
    const cleared = at("cleared");
    wheel.set(late, start + 30.5);
    wheel.set(early, start + 10.2);
    wheel.set(cleared, start + 20);
    wheel.clear(cleared);
    vi.advanceTimersByTime(100);
    expect(ran.map(([name]) => name)).toEqual(["early", "late"]);
    expect(ran[0]![1]).toBeGreaterThanOrEqual(start + 10.2);
    expect(ran[1]![1]).toBeGreaterThanOrEqual(start + 30.5);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("lets a timer set itself again from its run, like a client's next ping", () => {
    const wheel = new TimerWheel();
    const times: number[] = [];
    const start = performance.now();
    const tick = wheelTimer(() => {
      times.push(performance.now() - start);
      if (times.length < 5) wheel.set(tick, start + (times.length + 1) * 100);
    });
    wheel.set(tick, start + 100);
    vi.advanceTimersByTime(1_000);
    expect(times.map((t) => Math.floor(t / 100))).toEqual([1, 2, 3, 4, 5]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("moves a timer that is already set and clears one from the middle of a slot, leaving the others", () => {
    const wheel = new TimerWheel();
    const ran: string[] = [];
    const start = performance.now();
    const timers = ["a", "b", "c", "d"].map((name) => wheelTimer(() => ran.push(name)));
    const [a, b, c] = timers as [
      ReturnType<typeof wheelTimer>,
      ReturnType<typeof wheelTimer>,
      ReturnType<typeof wheelTimer>,
      ReturnType<typeof wheelTimer>,
    ];
    for (const timer of timers) wheel.set(timer, start + 10);
    wheel.clear(b);
    wheel.set(c, start + 50);
    wheel.set(a, start + 200_000);
    wheel.set(a, start + 20);
    vi.advanceTimersByTime(15);
    expect(ran).toEqual(["d"]);
    vi.advanceTimersByTime(100);
    expect(ran).toEqual(["d", "a", "c"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("holds timers beyond one revolution (65.5 s) until the wheel comes round", () => {
    const wheel = new TimerWheel();
    const start = performance.now();
    let ranAt: number | undefined;
    wheel.set(
      wheelTimer(() => (ranAt = performance.now())),
      start + 200_000,
    );
    vi.advanceTimersByTime(199_000);
    expect(ranAt).toBeUndefined();
    vi.advanceTimersByTime(2_000);
    expect(ranAt).toBeGreaterThanOrEqual(start + 200_000);
    expect(ranAt).toBeLessThan(start + 200_002);
  });

  it("keeps running timers across a revolution boundary of the clock when only near timers wait (the 65,536 ms stall)", () => {
    const REVOLUTION = 65_536;
    // The wheel starts 2 s before a boundary of performance.now().
    vi.advanceTimersByTime(REVOLUTION * 3 - 2_000 - performance.now());
    const boundary = REVOLUTION * 3;
    const wheel = new TimerWheel();
    const runs: number[] = [];
    // 100 clients pinging every second on a 10 ms grid whose last point is 3 ms short of the boundary.
    for (let i = 0; i < 100; i += 1) {
      let dueAt = boundary - 3 - 10 * i;
      const timer = wheelTimer(() => {
        runs.push(performance.now());
        dueAt += 1_000;
        wheel.set(timer, dueAt);
      });
      wheel.set(timer, dueAt);
    }
    vi.advanceTimersByTime(2_000);
    expect(runs.length).toBe(100);
    vi.advanceTimersByTime(3_000);
    expect(runs.filter((at) => at >= boundary).length).toBe(300);
  });
});
