import { describe, expect, it } from "vitest";
import { plotXRange } from "./chart-range";

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
