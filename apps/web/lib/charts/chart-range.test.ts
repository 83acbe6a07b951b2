import { describe, expect, it } from "vitest";
import { plotXRange, plotYRange, runStartSecond, selectedRange, zoomedXRange } from "./chart-range";

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

describe("a chart zoomed to a view range", () => {
  const start = 1_000;

  it("shows the range's first to last second, each point whole", () => {
    expect(zoomedXRange(start, { from: 12, to: 32 })).toEqual([1_011.5, 1_031.5]);
  });

  it("turns a drag into the seconds whose points it covers, counted from the run's start", () => {
    expect(selectedRange(start, 1_011.6, 1_031.2)).toEqual({ from: 12, to: 32 });
    expect(selectedRange(start, 1_031.2, 1_011.6)).toEqual({ from: 12, to: 32 });
  });

  it("keeps at least one second for a drag between two points, and none before the run's start", () => {
    expect(selectedRange(start, 1_011.2, 1_011.4)).toEqual({ from: 11, to: 12 });
    expect(selectedRange(start, 990, 1_003.2)).toEqual({ from: 0, to: 4 });
    expect(selectedRange(start, Number.NaN, 1_003)).toBeNull();
  });

  it("counts from the second the run's start falls in", () => {
    expect(runStartSecond("2026-11-27T10:00:00.750Z")).toBe(Date.parse("2026-11-27T10:00:00Z") / 1000);
    expect(runStartSecond(null)).toBeNull();
  });
});
