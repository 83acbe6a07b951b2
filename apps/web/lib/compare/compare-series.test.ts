import { describe, expect, it } from "vitest";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { alignAtStart, runColour, RUN_COLOURS } from "./compare-series";
import { seriesPoint } from "../shared/series-point.test-support";

const point = (t: number, rttP99Ms: number | null): SeriesPoint =>
  seriesPoint({ t, rttP50Ms: rttP99Ms, rttP99Ms, rttMaxMs: rttP99Ms });

describe("alignAtStart", () => {
  it("lays runs started hours apart on one axis of seconds since each run's start", () => {
    const first = [point(1000, 10), point(1001, 11), point(1002, 12)];
    const second = [point(9000, 20), point(9001, 21)];
    expect(alignAtStart([first, second], (p) => p.rttP99Ms)).toEqual([
      [0, 1, 2],
      [10, 11, 12],
      [20, 21, null],
    ]);
  });

  it("leaves a gap where a run missed a second, and keeps a second that measured nothing as null", () => {
    const gappy = [point(50, 1), point(53, null)];
    const steady = [point(70, 5), point(71, 6)];
    expect(alignAtStart([gappy, steady], (p) => p.rttP99Ms)).toEqual([
      [0, 1, 3],
      [1, null, null],
      [5, 6, null],
    ]);
  });

  it("draws a run with no points as an all-null line", () => {
    expect(alignAtStart([[], [point(5, 1)]], (p) => p.rttP99Ms)).toEqual([[0], [null], [1]]);
  });
});

describe("runColour", () => {
  it("gives each run its own colour and wraps past the palette", () => {
    expect(runColour(0)).not.toBe(runColour(1));
    expect(runColour(RUN_COLOURS.length)).toBe(runColour(0));
  });
});
