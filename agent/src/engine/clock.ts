/** Epoch milliseconds on the server's clock, as the agent best knows it. */
export interface Clock {
  now(): number;
}

/**
 * A monotonic epoch clock shifted by `offsetMs` (server time minus local time).
 * performance.now() rather than Date.now(), so an NTP step mid-run cannot bend the intervals.
 */
export function offsetClock(offsetMs = 0): Clock {
  return { now: () => performance.timeOrigin + performance.now() + offsetMs };
}

/** The longest single timer; longer waits loop, since setTimeout overflows past 2^31 ms. */
const MAX_TIMER_MS = 3_600_000;

/** Waits until `clock.now() >= at` or the signal aborts; resolves true when it was aborted. */
export async function waitUntil(clock: Clock, at: number, signal?: AbortSignal): Promise<boolean> {
  while (!signal?.aborted) {
    const remaining = at - clock.now();
    if (remaining <= 0) return false;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(Math.ceil(remaining), MAX_TIMER_MS));
      signal?.addEventListener("abort", done, { once: true });
    });
  }
  return true;
}

/** Waits `ms` on the local clock, or less if the signal aborts; resolves true when aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  const clock = offsetClock(0);
  return waitUntil(clock, clock.now() + ms, signal);
}
