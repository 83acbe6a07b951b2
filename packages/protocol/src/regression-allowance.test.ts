import { describe, expect, it } from "vitest";
import { parseRegressionAllowances } from "./regression-allowance";

const error = (text: string) => {
  const parsed = parseRegressionAllowances(text);
  return "error" in parsed ? parsed.error : null;
};

describe("--max-regression allowances", () => {
  it("reads short names and SLO metric ids, percent for latencies and percentage points for rates", () => {
    expect(parseRegressionAllowances("p99=10%,error-rate=0.5pp")).toEqual({
      allowances: [
        { metric: "rtt-p99-ms", limit: 10, unit: "%" },
        { metric: "error-rate", limit: 0.5, unit: "pp" },
      ],
    });
    expect(
      parseRegressionAllowances(" broadcast-p99 = 25% , loss-rate=1PP, script:join-ms-p99=5%, connect-p99-ms=0%"),
    ).toEqual({
      allowances: [
        { metric: "broadcast-p99-ms", limit: 25, unit: "%" },
        { metric: "loss-rate", limit: 1, unit: "pp" },
        { metric: "script:join-ms-p99", limit: 5, unit: "%" },
        { metric: "connect-p99-ms", limit: 0, unit: "%" },
      ],
    });
  });

  it("says what is wrong: an unknown metric, a rate in percent, a latency in points, no unit, a negative or missing limit, a metric twice", () => {
    expect(error("p95=10%")).toMatch(/"p95" is not a metric that can be held to a baseline: use p50, p99/);
    expect(error("error-rate=10%")).toBe(
      "error-rate is a rate: give its allowance in percentage points, e.g. error-rate=0.5pp (half a point more errors than the baseline)",
    );
    expect(error("p99=10pp")).toBe("p99 changes in percent of the baseline: give e.g. p99=10%");
    expect(error("p99=10")).toBe("p99 changes in percent of the baseline: give e.g. p99=10%");
    expect(error("p99=-5%")).toMatch(/"p99=-5%" is not metric=limit/);
    expect(error("p99")).toMatch(/"p99" is not metric=limit/);
    expect(error("p99=10%,rtt-p99-ms=5%")).toBe("rtt-p99-ms is given twice: give each metric once");
    expect(error("")).toMatch(/give at least one metric=limit/);
  });
});
