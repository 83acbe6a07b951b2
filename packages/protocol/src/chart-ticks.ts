// Axis ticks a reader can read: values on round steps (0, 5, 10, 15 ms) with the top tick at or above the highest
// point, and times on whole-second steps (every 5 s, 10 s, 1 min). Shared by the report PDF's charts and the
// dashboard's plan trend, so an axis never stops at 10 ms under a point at 12.59 ms.

const NICE_FRACTIONS = [1, 2, 2.5, 5, 10];

/** A round step (1, 2, 2.5 or 5 × 10ⁿ) that cuts `span` into about `count` parts. */
export function niceStep(span: number, count: number): number {
  if (!(span > 0) || !(count > 0)) return 1;
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const fraction = NICE_FRACTIONS.find((nice) => nice * magnitude >= raw) ?? 10;
  return fraction * magnitude;
}

/**
 * Ticks from 0 (or a negative minimum) up to the first round value at or above `max`, about `count` steps apart: the
 * axis's last tick is its top, so every point sits under a labelled tick. [0, 1] when there is nothing to show.
 */
export function niceTicks(min: number, max: number, count = 4): number[] {
  const low = Math.min(0, Number.isFinite(min) ? min : 0);
  const high = Number.isFinite(max) ? max : 0;
  if (high <= low) return [low, low + 1];
  const step = niceStep(high - low, count);
  const first = Math.floor(low / step) * step;
  const ticks: number[] = [];
  // Rounded to the step's own precision, so 0.1 + 0.2 reads 0.3.
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 2);
  for (let value = first; value < high + step; value += step) {
    ticks.push(Number(value.toFixed(digits)));
    if (value >= high) break;
  }
  return ticks;
}

/** Whole-second steps a time axis may take. */
const SECOND_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 43_200, 86_400];

/** Epoch seconds from `from` to `to` on the smallest whole-second step that gives at most `count` ticks. */
export function timeTicks(from: number, to: number, count = 5): number[] {
  if (!(to > from)) return [from];
  const step =
    SECOND_STEPS.find((seconds) => (to - from) / seconds <= Math.max(1, count - 1)) ??
    SECOND_STEPS[SECOND_STEPS.length - 1]!;
  const ticks: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(t);
  return ticks;
}
