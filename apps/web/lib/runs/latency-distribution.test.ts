import { describe, expect, it } from "vitest";
import {
  bucketEdgesMs,
  distributionMetrics,
  formatLatencyTick,
  heatColour,
  legendCounts,
} from "./latency-distribution";

const stats = (count: number) => ({ count, p50Ms: count ? 1 : null, p90Ms: null, p99Ms: null, maxMs: null });

describe("distributionMetrics", () => {
  it("lists what the run measured: round trips first, other latencies, then script histograms by name", () => {
    expect(
      distributionMetrics([
        {
          rttP50Ms: 1,
          latency: { broadcast: stats(3), connect: stats(5), login: stats(0) },
          script: { "b-ms": stats(1), "a-ms": stats(2) },
        },
      ]),
    ).toEqual(["rtt", "connect", "broadcast", "script:a-ms", "script:b-ms"]);
  });

  it("leaves out round trips a run never timed", () => {
    expect(distributionMetrics([{ rttP50Ms: null, roundTrips: 0, latency: { login: stats(4) } }])).toEqual(["login"]);
  });
});

describe("the drawing's scales", () => {
  it("gives each bucket its edges, ten a decade", () => {
    const [first, second] = bucketEdgesMs({ firstBucket: 30, counts: [1, 2] });
    expect(first!.lowMs).toBeCloseTo(1);
    expect(first!.highMs).toBeCloseTo(second!.lowMs);
    expect(second!.highMs).toBeCloseTo(10 ** 0.2);
  });

  it("writes latencies in their unit", () => {
    expect([0.25, 0.501, 1.58, 40.2, 1234].map(formatLatencyTick)).toEqual([
      "250 µs",
      "500 µs",
      "1.6 ms",
      "40 ms",
      "1.2 s",
    ]);
  });

  it("colours an empty cell not at all and the fullest darkest", () => {
    expect(heatColour(0, 10)).toBeNull();
    expect(heatColour(10, 10)).toBe("hsl(280 85% 25%)");
    expect(heatColour(1, 10)).toBe("hsl(55 85% 88%)");
    expect(legendCounts(10_000)).toEqual([1, 10, 100, 1000, 10_000]);
    expect(legendCounts(2)).toEqual([1, 2]);
  });
});
