import { describe, expect, it } from "vitest";
import type { ErrorSampleView } from "@throng/protocol/error-samples";
import { bytesView, samplesByKind } from "./error-samples";

const sample = (kind: string, at: number): ErrorSampleView => ({
  kind,
  message: kind,
  at,
  agentId: crypto.randomUUID(),
  sinceStartMs: at,
});

describe("error samples on the page", () => {
  it("groups by kind in the order each kind first happened, each kind's samples in time order", () => {
    const grouped = samplesByKind([sample("timeout", 30), sample("refused", 10), sample("timeout", 20)]);
    expect(grouped.map((g) => [g.kind, g.samples.map((s) => s.at)])).toEqual([
      ["refused", [10]],
      ["timeout", [20, 30]],
    ]);
  });

  it("shows bytes as escaped text and spaced hex, and counts the bytes the sample did not keep", () => {
    expect(bytesView({ length: 300, hex: "2d4552520d0a00" })).toEqual({
      text: "-ERR\\r\\n\\x00",
      hex: "2d 45 52 52 0d 0a 00",
      more: 293,
    });
  });
});
