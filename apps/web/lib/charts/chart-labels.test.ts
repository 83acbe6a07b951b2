import { describe, expect, it } from "vitest";
import { columnPlaces, overlapCount, placeLabels } from "./chart-labels";

describe("a chart's words never on top of each other", () => {
  it("moves an 'aborted' marker's word down its line when an SLO's 'above the chart' words hold the top right", () => {
    // The plot is 400 px wide; "↑ SLO: Round trip p99 < 50 ms, above the chart" right-aligned at the top, then the
    // marker of an abort 20 px from the right edge, its word drawn to the left of its line.
    const slo = { width: 230, height: 12, places: [{ left: 166, top: 2 }] };
    const aborted = { width: 44, height: 12, places: columnPlaces(332, 2, 180, 14) };
    const boxes = placeLabels([slo, aborted]);
    expect(boxes[0]).toEqual({ left: 166, top: 2, width: 230, height: 12 });
    expect(boxes[1]!.top).toBe(16);
    expect(overlapCount(boxes)).toBe(0);
    // Drawn where they wanted to be, they would have read "above the chaborted".
    expect(overlapCount([boxes[0]!, { ...boxes[1]!, top: 2 }])).toBe(1);
  });

  it("keeps a marker's word off an SLO's dashed line, and an SLO's words below its line when above is taken", () => {
    const line = { left: 0, top: 15, width: 400, height: 2 };
    const marker = placeLabels([{ width: 44, height: 12, places: columnPlaces(100, 8, 180, 14) }], [line]);
    expect(marker[0]!.top).toBe(22);
    const [first, second] = placeLabels([
      {
        width: 120,
        height: 12,
        places: [
          { left: 280, top: 40 },
          { left: 280, top: 60 },
        ],
      },
      {
        width: 120,
        height: 12,
        places: [
          { left: 280, top: 44 },
          { left: 280, top: 62 },
        ],
      },
    ]);
    expect(first!.top).toBe(40);
    expect(second!.top).toBe(62);
  });

  it("takes the first place when none is free, rather than dropping a label", () => {
    const boxes = placeLabels([
      { width: 10, height: 10, places: [{ left: 0, top: 0 }] },
      { width: 10, height: 10, places: [{ left: 0, top: 0 }] },
    ]);
    expect(boxes).toHaveLength(2);
    expect(overlapCount(boxes)).toBe(1);
  });
});
