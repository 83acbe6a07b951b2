import { describe, expect, it } from "vitest";
import * as hdr from "hdr-histogram-js";
import { bucketLowerMs, bucketOf } from "@throng/protocol/latency-distribution";
import {
  addEncoded,
  emptyHistogram,
  encodeValues,
  forEachEncodedBucket,
  latencyPercentiles,
} from "@throng/wire/snapshot-histogram";
import { latencyDistribution, secondsPerColumn } from "./latency-distribution";

const START = 1_700_000_000;

/** Latencies (µs) spread over three decades, a different mix each second, as two agents would send them. */
function valuesOf(second: number, agent: number): number[] {
  return Array.from(
    { length: 200 },
    (_, i) => 150 + ((i * 7919 + second * 104_729 + agent * 31) % 40_000) * (i % 10 === 0 ? 8 : 1),
  );
}

function rows(seconds: number) {
  return Array.from({ length: seconds }, (_, s) =>
    [0, 1].map((agent) => ({ second: START + s, encoded: encodeValues(valuesOf(s, agent)) })),
  ).flat();
}

function histogramOf(values: number[]) {
  const histogram = hdr.build({ bitBucketSize: 64, autoResize: true, numberOfSignificantValueDigits: 3 });
  for (const value of values) histogram.recordValue(value);
  return histogram;
}

describe("latencyDistribution", () => {
  it("puts every sample in one bucket: the buckets and each heatmap column sum to the merged histogram's total", () => {
    const result = latencyDistribution(rows(30), START, { from: 0, to: 30 });
    expect(result.stats.count).toBe(30 * 2 * 200);
    expect(result.counts.reduce((a, b) => a + b, 0)).toBe(result.stats.count);
    expect(result.heatmap.columnStart).toEqual(Array.from({ length: 30 }, (_, s) => s));
    for (const column of result.heatmap.counts) expect(column.reduce((a, b) => a + b, 0)).toBe(400);
    const cells = result.heatmap.counts.flat();
    expect(result.heatmap.maxCount).toBe(Math.max(...cells));
    // The whole is the columns added up, bucket by bucket.
    expect(result.counts).toEqual(
      result.counts.map((_, i) => result.heatmap.counts.reduce((sum, column) => sum + column[i]!, 0)),
    );
  });

  it("states the percentiles HDR gives for every sample of the range, merged and never averaged", () => {
    const all = rows(20);
    const result = latencyDistribution(all, START, { from: 5, to: 12 });
    // The run summary's merge of the same snapshots states the same figures.
    const summaryMerge = emptyHistogram();
    for (const row of all.filter((r) => r.second >= START + 5 && r.second < START + 12))
      addEncoded(summaryMerge, row.encoded);
    expect(result.stats).toEqual(latencyPercentiles(summaryMerge));
    // And the percentiles are those of one HDR histogram of every raw sample (max is read at its bucket's top).
    const values = Array.from({ length: 7 }, (_, i) => [...valuesOf(5 + i, 0), ...valuesOf(5 + i, 1)]).flat();
    const { maxMs: _max, ...percentiles } = latencyPercentiles(histogramOf(values));
    expect(result.stats).toMatchObject(percentiles);
    expect(result.counts.reduce((a, b) => a + b, 0)).toBe(values.length);
    expect(result.heatmap.columnStart).toEqual([5, 6, 7, 8, 9, 10, 11]);
  });

  it("puts each p50/p99 marker in the bucket where the cumulative count crosses it", () => {
    const result = latencyDistribution(rows(10), START, { from: 0, to: 10 });
    let cumulative = 0;
    const crossing = (share: number) =>
      result.firstBucket +
      result.counts.findIndex((count) => {
        cumulative += count;
        return cumulative >= share * result.stats.count;
      });
    cumulative = 0;
    expect(crossing(0.5)).toBe(bucketOf(result.stats.p50Ms! * 1000));
    cumulative = 0;
    expect(crossing(0.99)).toBe(bucketOf(result.stats.p99Ms! * 1000));
  });

  it("merges a one-hour run's seconds into at most 900 columns, every sample kept", () => {
    expect(secondsPerColumn(3600)).toBe(4);
    const hour = Array.from({ length: 3600 }, (_, s) => ({ second: START + s, encoded: encodeValues([1000 + s]) }));
    const result = latencyDistribution(hour, START, { from: 0, to: 3600 });
    expect(result.heatmap.columnStart).toHaveLength(900);
    expect(result.heatmap.columnStart.slice(0, 3)).toEqual([0, 4, 8]);
    expect(result.heatmap.counts.flat().reduce((a, b) => a + b, 0)).toBe(3600);
  });

  it("answers an empty distribution for a range with no samples", () => {
    const result = latencyDistribution(rows(3), START, { from: 10, to: 20 });
    expect(result.stats).toEqual({ count: 0, p50Ms: null, p90Ms: null, p99Ms: null, maxMs: null });
    expect(result.counts).toEqual([]);
    expect(result.heatmap.columnStart).toEqual([]);
  });
});

/**
 * The distribution as it was first computed, the full merge: every bucket of every encoding recorded into one HDR
 * histogram and added, bucket by bucket, to a map per column. latencyDistribution must answer exactly this.
 */
function fullMerge(rows: readonly { second: number; encoded: string }[], start: number, from: number, to: number) {
  const perColumn = secondsPerColumn(to - from);
  const merged = emptyHistogram();
  const columns = new Map<number, Map<number, number>>();
  for (const row of rows) {
    const offset = row.second - start;
    if (offset < from || offset >= to) continue;
    const column = from + Math.floor((offset - from) / perColumn) * perColumn;
    const cells = columns.get(column) ?? new Map<number, number>();
    columns.set(column, cells);
    forEachEncodedBucket(row.encoded, (valueUs, count) => {
      merged.recordValueWithCount(valueUs, count);
      cells.set(bucketOf(valueUs), (cells.get(bucketOf(valueUs)) ?? 0) + count);
    });
  }
  const low = Math.min(...[...columns.values()].flatMap((cells) => [...cells.keys()]));
  const columnStart = [...columns.keys()].filter((column) => columns.get(column)!.size > 0).sort((a, b) => a - b);
  return {
    stats: latencyPercentiles(merged),
    firstBucket: low,
    cells: columnStart.map((column) => [...columns.get(column)!].map(([bucket, count]) => [bucket - low, count])),
    columnStart,
  };
}

describe("latencyDistribution against the full merge", () => {
  it("answers the same percentiles, buckets and heatmap cells as recording every bucket, for an hour and a zoom", () => {
    // Two agents, a slow tail that moves, an empty second, and one agent of another precision (through the library).
    const coarse = hdr.build({ bitBucketSize: 64, autoResize: true, numberOfSignificantValueDigits: 2 });
    for (const value of [90, 4_000, 77_000, 5_000_000]) coarse.recordValue(value);
    const seconds = Array.from({ length: 97 * 2 }, (_, i) => encodeValues(valuesOf(i >> 1, i & 1)));
    const hour = [
      ...Array.from({ length: 3_600 }, (_, s) => ({ second: START + s, encoded: seconds[s % seconds.length]! })),
      { second: START + 1_234, encoded: encodeValues([]) },
      { second: START + 1_500, encoded: hdr.encodeIntoCompressedBase64(coarse) },
      { second: START + 1_501, encoded: encodeValues([2 ** 36, 1]) },
    ];
    for (const [from, to] of [
      [0, 3_600],
      [1_200, 1_800],
      [1_499, 1_502],
    ] as const) {
      const result = latencyDistribution(hour, START, { from, to });
      const expected = fullMerge(hour, START, from, to);
      expect(result.stats).toEqual(expected.stats);
      expect(result.firstBucket).toBe(expected.firstBucket);
      expect(result.heatmap.columnStart).toEqual(expected.columnStart);
      for (const [c, column] of result.heatmap.counts.entries())
        expect(column.flatMap((count, i) => (count ? [[i, count]] : []))).toEqual(
          expected.cells[c]!.sort((a, b) => a[0]! - b[0]!),
        );
    }
  });
});

describe("log buckets", () => {
  it("are ten a decade and a decade's edge starts its bucket", () => {
    expect(bucketOf(1000)).toBe(30);
    expect(bucketOf(999)).toBe(29);
    expect(bucketLowerMs(30)).toBeCloseTo(1);
    expect(bucketLowerMs(bucketOf(1259) + 1)).toBeGreaterThan(1.259);
  });
});
