import { describe, expect, it } from "vitest";
import { decodeRemoteWrite, encodeRemoteWrite } from "./remote-write";

describe("remote write encoding", () => {
  it("carries each series with __name__ among labels sorted by name, and its samples oldest first", () => {
    const body = encodeRemoteWrite([
      { name: "throng_rtt_seconds", kind: "gauge", unit: "s", labels: { run_id: "r", quantile: "0.99", org: "o" }, samples: [{ timestampMs: 2_000, value: 0.5 }, { timestampMs: 1_000, value: 0.25 }] },
    ]);
    expect(decodeRemoteWrite(body)).toEqual([{
      labels: [{ name: "__name__", value: "throng_rtt_seconds" }, { name: "org", value: "o" }, { name: "quantile", value: "0.99" }, { name: "run_id", value: "r" }],
      samples: [{ value: 0.25, timestamp: 1_000 }, { value: 0.5, timestamp: 2_000 }],
    }]);
  });
});
