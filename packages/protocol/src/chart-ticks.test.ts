import { describe, expect, it } from "vitest";
import { niceStep, niceTicks, timeTicks } from "./chart-ticks";

describe("axis ticks a reader can read", () => {
  it("steps by 1, 2, 2.5 or 5 × 10ⁿ", () => {
    expect(niceStep(12.59, 4)).toBe(5);
    expect(niceStep(100, 4)).toBe(25);
    expect(niceStep(0.07, 4)).toBeCloseTo(0.02);
    expect(niceStep(0, 4)).toBe(1);
  });

  it("tops the axis at a labelled tick above the highest point: never stops at 10 ms under 12.59 ms", () => {
    expect(niceTicks(0, 12.59)).toEqual([0, 5, 10, 15]);
    expect(niceTicks(3, 40)).toEqual([0, 10, 20, 30, 40]);
    expect(niceTicks(0, 0.3)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(niceTicks(0, 0)).toEqual([0, 1]);
    expect(niceTicks(-4, 6)).toEqual([-5, -2.5, 0, 2.5, 5, 7.5]);
  });

  it("puts time ticks on whole-second steps inside the range", () => {
    expect(timeTicks(1000, 1029, 5)).toEqual([1000, 1010, 1020]);
    expect(timeTicks(1003, 1009, 5)).toEqual([1004, 1006, 1008]);
    expect(timeTicks(0, 3600, 5)).toEqual([0, 900, 1800, 2700, 3600]);
    expect(timeTicks(5, 5)).toEqual([5]);
  });
});
