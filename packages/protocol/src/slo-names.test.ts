import { describe, expect, it } from "vitest";
import { sloMetricName, sloValueText, sloWords } from "./slo-names";

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

  it("reads a value as the metric's kind: a script counter's count, a rate's percent, else ms; null as not measured", () => {
    const format = {
      integer: (n: number) => `${n} whole`,
      ms: (n: number) => `${n} ms`,
      percent: (r: number) => `${r * 100} %`,
    };
    expect(sloValueText("script:replies-count", 1200, format)).toBe("1200 whole");
    expect(sloValueText("error-rate", 0.5, format)).toBe("50 %");
    expect(sloValueText("rtt-p99-ms", 20, format)).toBe("20 ms");
    expect(sloValueText("rtt-p99-ms", null, format)).toBe("not measured");
  });
});
