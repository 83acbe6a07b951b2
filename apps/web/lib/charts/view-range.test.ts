import { describe, expect, it } from "vitest";
import { distributionQuery, readViewRange, withViewRange } from "./view-range";

describe("readViewRange", () => {
  it("reads whole seconds since the run's start from URLSearchParams and from a page's searchParams", () => {
    expect(readViewRange(new URLSearchParams("from=12&to=32"))).toEqual({ from: 12, to: 32 });
    expect(readViewRange({ from: "0", to: ["5", "9"] })).toEqual({ from: 0, to: 5 });
  });

  it("is null without a range or with one that cannot be (a bound missing, not a whole number, to not after from)", () => {
    expect(readViewRange(new URLSearchParams(""))).toBeNull();
    expect(readViewRange(new URLSearchParams("from=12"))).toBeNull();
    expect(readViewRange(new URLSearchParams("from=-1&to=5"))).toBeNull();
    expect(readViewRange(new URLSearchParams("from=1.5&to=5"))).toBeNull();
    expect(readViewRange(new URLSearchParams("from=abc&to=5"))).toBeNull();
    expect(readViewRange(new URLSearchParams("from=5&to=5"))).toBeNull();
    expect(readViewRange({ from: "9", to: "3" })).toBeNull();
  });
});

describe("withViewRange", () => {
  it("sets the range beside the query's other parameters and removes it on reset", () => {
    expect(withViewRange("?tab=charts", { from: 3, to: 8 })).toBe("?tab=charts&from=3&to=8");
    expect(withViewRange("?tab=charts&from=3&to=8", null)).toBe("?tab=charts");
    expect(withViewRange("from=3&to=8", null)).toBe("");
  });
});

describe("distributionQuery", () => {
  it("names the metric, and the range's seconds only when there is one", () => {
    expect(distributionQuery("rtt", null).toString()).toBe("metric=rtt");
    expect(distributionQuery("rtt", { from: 12, to: 32 }).toString()).toBe("metric=rtt&from=12&to=32");
  });
});
