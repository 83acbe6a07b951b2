import { describe, expect, it } from "vitest";
import { sloMetricName, sloWords } from "./slo-names";

const value = (metric: string, n: number) => (metric.endsWith("-rate") ? `${n * 100} %` : `${n} ms`);

describe("SLO metrics in words", () => {
  it("names built-in and script metrics", () => {
    expect(sloMetricName("rtt-p99-ms")).toBe("Round trip p99");
    expect(sloMetricName("script:join-ms-p99")).toBe("join-ms p99 (script)");
  });

  it("rewrites a sentence's thresholds, a reason's measured value and bare ids, in the reader's format", () => {
    expect(sloWords("meets rtt-p99-ms < 50", value)).toBe("meets Round trip p99 below 50 ms");
    expect(sloWords("loss-rate (0.2, must be below 0.05)", value)).toBe("Loss rate (20 %, must be below 5 %)");
    expect(sloWords("no data for broadcast-p99-ms", value)).toBe("no data for Broadcast p99");
  });

  it("leaves words that only contain an id alone", () => {
    expect(sloWords("my-rtt-p99-ms-thing", value)).toBe("my-rtt-p99-ms-thing");
  });
});
