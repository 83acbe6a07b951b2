import { describe, expect, it } from "vitest";
import { hasCorrectedRtt, RTT_CORRECTED_LINES } from "./series-rtt";
import { idleSeriesPoint } from "../shared/series-point.test-support";

describe("the round-trip chart corrected for coordinated omission", () => {
  it("switches the round-trip chart to the corrected percentiles only when they were measured", () => {
    expect(hasCorrectedRtt([idleSeriesPoint({})])).toBe(false);
    const p = idleSeriesPoint({ latency: { rttCorrected: { count: 10, p50Ms: 1, p90Ms: 2, p99Ms: 300, maxMs: 310 } } });
    expect(hasCorrectedRtt([p])).toBe(true);
    expect(RTT_CORRECTED_LINES.map((l) => l.value(p))).toEqual([1, 2, 300, 310]);
  });
});
