import { describe, expect, it } from "vitest";
import { plotXRange, plotYRange } from "./chart-range";

describe("a run chart's x range", () => {
  it("keeps a lone second strictly inside the plot, at its start or anywhere in the planned window", () => {
    const [min, max] = plotXRange([100], [100, 130])!;
    expect(min).toBeLessThan(100);
    expect(max).toBeGreaterThan(130);
    const [low, high] = plotXRange([100])!;
    expect(low).toBeLessThan(100);
    expect(high).toBeGreaterThan(100);
  });

  it("has no range before the first second", () => {
    expect(plotXRange([], [100, 130])).toBeNull();
  });
});

describe("plotYRange", () => {
  it("stretches to a threshold near the measurements, with a tenth more above", () => {
    const [bottom, top] = plotYRange(0, 30, [50]);
    expect(bottom).toBe(0);
    expect(top).toBeCloseTo(55);
  });

  it("follows the measurements when a threshold is far above them, so they are not flattened", () => {
    expect(plotYRange(0, 2, [2000])[1]).toBeCloseTo(2.2);
  });

  it("shows the threshold while there is nothing measured yet", () => {
    expect(plotYRange(null, null, [20])[1]).toBeCloseTo(22);
  });

  it("starts at a negative minimum and has a range of 1 with nothing at all", () => {
    expect(plotYRange(-3, 5, [])[0]).toBe(-3);
    expect(plotYRange(-3, 5, [])[1]).toBeCloseTo(5.5);
    expect(plotYRange(null, null, [])).toEqual([0, 1]);
  });
});
