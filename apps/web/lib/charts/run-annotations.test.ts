import { describe, expect, it } from "vitest";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { nearestMarker, noteMarkers, saturationMarkers, timedLine } from "./run-annotations";

describe("a run note's timed lines", () => {
  it("reads the time since the run's start a line begins with, as people write it", () => {
    expect(timedLine("0:42 failover started")).toEqual({ offset: 42, words: "failover started" });
    expect(timedLine("1:05 – GC pause")).toEqual({ offset: 65, words: "GC pause" });
    expect(timedLine("1:00:05: deploy")).toEqual({ offset: 3605, words: "deploy" });
    expect(timedLine("+12s cache flushed")).toEqual({ offset: 12, words: "cache flushed" });
    expect(timedLine("12 s: cache flushed")).toEqual({ offset: 12, words: "cache flushed" });
    expect(timedLine("1 m 05 s lobby restarted")).toEqual({ offset: 65, words: "lobby restarted" });
    expect(timedLine("2 min - scale out")).toEqual({ offset: 120, words: "scale out" });
  });

  it("leaves lines that do not begin with a time alone", () => {
    expect(timedLine("p99 rose after 40 s: GC pauses?")).toBeNull();
    expect(timedLine("Build 1.4.2 on the new lobby pool.")).toBeNull();
    expect(timedLine("12 servers restarted")).toBeNull();
    expect(timedLine("")).toBeNull();
  });

  it("marks each timed line at the run's start plus its time, the plot's words cut short and the whole line kept", () => {
    const markers = noteMarkers("Build 1.4.2\n0:02 failover of the primary database started\n5 s done", 1_000);
    expect(markers).toEqual([
      {
        t: 1_002,
        label: "failover of the primary…",
        kind: "note",
        detail: "Note: 0:02 failover of the primary database started",
      },
      { t: 1_005, label: "done", kind: "note", detail: "Note: 5 s done" },
    ]);
    expect(noteMarkers("0:02 x", null)).toEqual([]);
  });
});

describe("saturation markers", () => {
  const point = (t: number, saturated: string[]): SeriesPoint =>
    ({
      t,
      agentHealth: saturated.map((agentId) => ({
        agentId,
        cpuPercent: 99,
        eventLoopP99Ms: 80,
        rssBytes: 1,
        saturated: true,
        saturatedReason: "CPU 99 %",
      })),
    }) as unknown as SeriesPoint;

  it("marks where each stretch of a saturated agent begins, naming it and why", () => {
    const markers = saturationMarkers(
      [point(1, []), point(2, ["a"]), point(3, ["a"]), point(4, []), point(5, ["a", "b"])],
      (id) => `host-${id}`,
    );
    expect(markers.map((marker) => [marker.t, marker.label])).toEqual([
      [2, "agent saturated"],
      [5, "agent saturated"],
    ]);
    expect(markers[1]!.detail).toBe(
      "Agent saturated, the load generator was the limit: host-a (CPU 99 %), host-b (CPU 99 %)",
    );
  });
});

describe("the marker under the cursor", () => {
  it("is the nearest line within a few pixels, or none", () => {
    expect(nearestMarker(100, [40, 103, 98])).toBe(2);
    expect(nearestMarker(100, [40, 120])).toBeNull();
    expect(nearestMarker(null, [100])).toBeNull();
    expect(nearestMarker(-10, [-10])).toBeNull();
  });
});
