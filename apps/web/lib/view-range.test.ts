import { describe, expect, it } from "vitest";
import { readViewRange } from "./view-range";

describe("readViewRange", () => {
  it("reads ?from=&to= as whole seconds since the run's start", () => {
    expect(readViewRange(new URLSearchParams("from=12&to=32"))).toEqual({ from: 12, to: 32 });
    expect(readViewRange({ from: "0", to: ["5"] })).toEqual({ from: 0, to: 5 });
  });

  it("is null (the whole run) without a range or with one that cannot be", () => {
    expect(readViewRange(new URLSearchParams(""))).toBeNull();
    expect(readViewRange(new URLSearchParams("from=12"))).toBeNull();
    expect(readViewRange(new URLSearchParams("from=a&to=3"))).toBeNull();
    expect(readViewRange(new URLSearchParams("from=-1&to=3"))).toBeNull();
    expect(readViewRange(new URLSearchParams("from=5&to=5"))).toBeNull();
  });
});
