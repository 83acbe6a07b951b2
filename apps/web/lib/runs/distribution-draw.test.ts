import { describe, expect, it } from "vitest";
import { formatTimeOfDay } from "../shared/format";
import { formatOffset, heatmapTimeTicks, markerGroups } from "./distribution-draw";

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

describe("the heatmap's time ticks", () => {
  it("read as times of day on the clock's round seconds when the run's start is known, as the line charts' do", () => {
    // A run that started at 12:00:07 UTC, 30 s shown 300 px wide: a tick every 10 s of the clock, not of the run.
    const start = Date.UTC(2026, 10, 27, 12, 0, 7) / 1000;
    const ticks = heatmapTimeTicks(0, 30, 300, start);
    expect(ticks.map((tick) => tick.at)).toEqual([3, 13, 23]);
    expect(ticks.map((tick) => tick.text)).toEqual([start + 3, start + 13, start + 23].map(formatTimeOfDay));
  });

  it("fall back to seconds since the start where the start is not known", () => {
    expect(heatmapTimeTicks(0, 30, 600, null).map((tick) => tick.text)).toEqual([
      "0:00",
      "0:05",
      "0:10",
      "0:15",
      "0:20",
      "0:25",
      "0:30",
    ]);
  });
});
