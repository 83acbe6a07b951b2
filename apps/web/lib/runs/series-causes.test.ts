import { describe, expect, it } from "vitest";
import { causeLines, causeNames, DELIVERY_LINES, hasDelivery } from "./series-causes";
import { idleSeriesPoint } from "../shared/series-point.test-support";

describe("errors and disconnects by cause", () => {
  it("lists every cause seen and charts 0 for seconds without it", () => {
    const points = [
      idleSeriesPoint({ errorsByKind: { timeout: 2 } }),
      idleSeriesPoint({ errorsByKind: { reset: 1 }, closesByCause: { server: 3 } }),
    ];
    const names = causeNames(points);
    expect(names).toEqual({ errors: ["reset", "timeout"], closes: ["server"] });
    // Closes the agent made itself (a capacity search stepping down) are planned, not disconnects.
    expect(causeNames([idleSeriesPoint({ closesByCause: { agent: 5 } })]).closes).toEqual([]);
    const lines = causeLines(names.errors, names.closes);
    expect(lines.map((l) => l.label)).toEqual(["error: reset", "error: timeout", "closed: server"]);
    expect(lines.map((l) => l.value(points[0]!))).toEqual([0, 2, 0]);
  });

  it("shows movement-sync reach as a percentage, only when measured", () => {
    expect(hasDelivery([idleSeriesPoint({})])).toBe(false);
    const p = idleSeriesPoint({ broadcastReach: 0.987, lost: 4 });
    expect(hasDelivery([p])).toBe(true);
    // Counts a point leaves out are 0 in a second that measured delivery, and no value in one that measured none.
    expect(DELIVERY_LINES.map((l) => l.value(p))).toEqual([98.7, 4, 0, 0]);
    expect(DELIVERY_LINES.map((l) => l.value(idleSeriesPoint({ broadcastReach: 1 })))).toEqual([100, 0, 0, 0]);
    expect(DELIVERY_LINES.map((l) => l.value(idleSeriesPoint({})))).toEqual([null, null, null, null]);
  });
});
