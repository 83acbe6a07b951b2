import { describe, expect, it } from "vitest";
import { Slo } from "@throng/protocol/plan";
import { scriptSloMetrics } from "./plan-script-slos";

describe("SLO choices of a script plan", () => {
  it("are the declared metrics as the SLO schema takes them: p50/p99 of a histogram, the count of a counter", () => {
    const draft = {
      scenario: { kind: "script", metrics: [{ name: "connect-ms", kind: "histogram" }, { name: "replies", kind: "counter" }, { name: "Bad Name", kind: "counter" }, { name: "half", kind: "" }] },
    };
    const choices = scriptSloMetrics(draft);
    expect(choices).toEqual(["script:connect-ms-p50", "script:connect-ms-p99", "script:replies-count"]);
    for (const metric of choices) expect(Slo.safeParse({ metric, below: 1 }).success).toBe(true);
  });

  it("are none for another scenario", () => {
    expect(scriptSloMetrics({ scenario: { kind: "ping-pong", metrics: [{ name: "x", kind: "counter" }] } })).toEqual([]);
  });
});
