import { describe, expect, it } from "vitest";
import { sloText } from "./slo-text";

describe("sloText", () => {
  it("writes a search's thresholds and breaking metrics in words", () => {
    expect(
      sloText("Holds 15 clients while meeting rtt-p99-ms < 50, error-rate < 0.01; broke at 20 clients on rtt-p99-ms."),
    ).toBe(
      "Holds 15 clients while meeting Round trip p99 below 50 ms, Error rate below 1 %; broke at 20 clients on Round trip p99.",
    );
  });

  it("names a script's metric and leaves other words alone", () => {
    expect(sloText("SLO without data: script:join-ms-p99 (nothing measured it)")).toBe(
      "SLO without data: join-ms p99 (script) (nothing measured it)",
    );
    expect(sloText("the error-rate-ish word and rtt-p99-msx stay")).toBe(
      "the error-rate-ish word and rtt-p99-msx stay",
    );
  });
});
