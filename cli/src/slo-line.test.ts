import { describe, expect, it } from "vitest";
import type { SloVerdict } from "@throng/protocol/report";
import { formatSloValue, sloLine } from "./run-report";

const verdict = (metric: string, value: number, below: number): SloVerdict => ({
  metric,
  below,
  value,
  status: "met",
  passed: true,
  breachedSeconds: 0,
  measuredSeconds: 3,
  firstBreachAt: null,
});

describe("throng run says each SLO's values in its unit, as the dashboard and the report do (slo-metrics.ts)", () => {
  it("a script histogram's percentile in ms, its counter as a count, a rate in percent", () => {
    expect(sloLine(verdict("script:join-ms-p99", 12.5, 100))).toBe(
      "script:join-ms-p99 12.5 ms, must be below 100 ms: pass (0 of 3 s breached)",
    );
    expect(formatSloValue("script:replies-count", 1200)).toBe("1200");
    expect(formatSloValue("error-rate", 0.0125)).toBe("1.25%");
    expect(formatSloValue("loss-rate", 0.01)).toBe("1%");
    expect(formatSloValue("rtt-p99-ms", 82.5)).toBe("82.5 ms");
    expect(formatSloValue("rtt-p99-ms", null)).toBe("no data");
  });
});
