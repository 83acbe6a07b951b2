import { describe, expect, it } from "vitest";
import { histogramSeries } from "./histogram-series.test-support";
import { decodeRemoteWrite, encodeRemoteWrite } from "./remote-write";

describe("remote write encoding", () => {
  it("carries each series with __name__ among labels sorted by name, and its samples oldest first", () => {
    const body = encodeRemoteWrite([
      {
        name: "throng_rtt_seconds",
        kind: "gauge",
        unit: "s",
        labels: { run_id: "r", quantile: "0.99", org: "o" },
        samples: [
          { timestampMs: 2_000, value: 0.5 },
          { timestampMs: 1_000, value: 0.25 },
        ],
      },
    ]);
    expect(decodeRemoteWrite(body)).toEqual([
      {
        labels: [
          { name: "__name__", value: "throng_rtt_seconds" },
          { name: "org", value: "o" },
          { name: "quantile", value: "0.99" },
          { name: "run_id", value: "r" },
        ],
        samples: [
          { value: 0.25, timestamp: 1_000 },
          { value: 0.5, timestamp: 2_000 },
        ],
      },
    ]);
  });

  it("sends a histogram as classic cumulative _bucket{le} series ending at +Inf, _count and _sum", () => {
    const body = encodeRemoteWrite([
      histogramSeries({
        name: "h_seconds",
        startMs: 0,
        samples: [
          { timestampMs: 1_000, counts: [2, 0, 1], count: 3, sumSec: 0.5 },
          { timestampMs: 2_000, counts: [3, 4, 1], count: 8, sumSec: 0.75 },
        ],
      }),
    ]);
    const byName = new Map(
      decodeRemoteWrite(body).map((s) => [
        s.labels
          .filter((l) => l.name !== "run_id")
          .map((l) => `${l.name}=${l.value}`)
          .join(","),
        s.samples.map((x) => x.value),
      ]),
    );
    expect(Object.fromEntries(byName)).toEqual({
      "__name__=h_seconds_bucket,le=0.001": [2, 3],
      "__name__=h_seconds_bucket,le=0.01": [2, 7],
      "__name__=h_seconds_bucket,le=+Inf": [3, 8],
      "__name__=h_seconds_count": [3, 8],
      "__name__=h_seconds_sum": [0.5, 0.75],
    });
  });
});
