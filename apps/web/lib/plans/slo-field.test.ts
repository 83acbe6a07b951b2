import { describe, expect, it } from "vitest";
import { Slo } from "@throng/protocol/plan";
import { describeNode } from "./schema-node";

describe("an SLO's metric in the plan form", () => {
  it("is a select of the built-in metrics, though the schema also takes script:NAME-p99", () => {
    const node = describeNode(Slo);
    const metric = node.kind === "object" ? node.fields.find((field) => field.key === "metric")?.node : undefined;
    expect(metric).toMatchObject({ kind: "choice" });
    expect(metric?.kind === "choice" ? metric.options : []).toEqual(
      expect.arrayContaining(["rtt-p99-ms", "error-rate", "loss-rate"]),
    );
  });
});
