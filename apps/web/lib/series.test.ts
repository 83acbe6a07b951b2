import { describe, expect, it } from "vitest";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { mergePoints, toColumns, xRange, RTT_LINES } from "./series";

const point = (t: number, connections = 1, rttP99Ms: number | null = 2): SeriesPoint => ({
  t,
  agents: 1,
  clients: 10,
  connections,
  messagesSentPerSec: 5,
  messagesReceivedPerSec: 5,
  bytesSentPerSec: 320,
  bytesReceivedPerSec: 320,
  errors: 0,
  rttP50Ms: 1,
  rttP99Ms,
  rttMaxMs: 3,
});

describe("mergePoints", () => {
  it("replaces a second already present: the API re-merges a second when a late agent reports", () => {
    const merged = mergePoints([point(1, 5), point(2, 5)], [point(2, 10)]);
    expect(merged.map((p) => [p.t, p.connections])).toEqual([
      [1, 5],
      [2, 10],
    ]);
  });

  it("keeps seconds in time order whatever order they arrive in", () => {
    expect(mergePoints([point(3)], [point(1), point(2)]).map((p) => p.t)).toEqual([1, 2, 3]);
  });
});

describe("toColumns", () => {
  it("turns points into uPlot columns, keeping missing percentiles as gaps", () => {
    expect(toColumns([point(1, 1, null), point(2, 1, 4)], RTT_LINES)).toEqual([
      [1, 2],
      [1, 1],
      [null, 4],
    ]);
  });
});

describe("xRange", () => {
  it("widens the axis to the planned window so a live run grows from the left", () => {
    expect(xRange([100, 101], [100, 129])).toEqual([100, 129]);
  });

  it("gives a lone point an axis around it and nothing without points", () => {
    expect(xRange([100])).toEqual([99, 101]);
    expect(xRange([])).toBeNull();
  });
});
