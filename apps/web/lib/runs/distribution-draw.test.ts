import { describe, expect, it } from "vitest";
import { formatOffset, markerGroups } from "./distribution-draw";

describe("the histogram's percentile markers", () => {
  it("share one label where they fall together (p90, p99 and max of four samples) and keep their own elsewhere", () => {
    const groups = markerGroups({ count: 4, p50Ms: 2.6, p90Ms: 23.4, p99Ms: 23.4, maxMs: 23.4 }, (ms) => ms * 10);
    expect(groups.map((group) => group.words)).toEqual(["p50 2.6 ms", "p90, p99, max 23 ms"]);
  });
});

describe("formatOffset", () => {
  it("writes seconds since the start as m:ss, or h:mm:ss past an hour", () => {
    expect([0, 75, 3600, 3725].map(formatOffset)).toEqual(["0:00", "1:15", "1:00:00", "1:02:05"]);
  });
});
