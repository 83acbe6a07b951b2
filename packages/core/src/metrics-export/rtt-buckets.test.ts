import { describe, expect, it } from "vitest";
import { addEncoded, emptyHistogram, encodeValues, latencyPercentiles } from "../metrics/histogram";
import { addRttBuckets, bucketsOfHistogram, RTT_BUCKET_BOUNDS_SEC, rttBucketsBySecond } from "./rtt-buckets";

/** Which bucket (index into the counts; the last is +Inf) each bound in ms names. */
const bucketOf = (ms: number | "+Inf") =>
  ms === "+Inf" ? RTT_BUCKET_BOUNDS_SEC.length : (RTT_BUCKET_BOUNDS_SEC as readonly number[]).indexOf(ms / 1000);

describe("RTT histogram buckets", () => {
  it("puts each recorded value under the first bound at or above it, merging agents of the same second", () => {
    const byIndex = rttBucketsBySecond([
      { second: 7, rttHist: encodeValues([100, 250, 251, 1_000, 1_500]) },
      { second: 7, rttHist: encodeValues([7_000, 7_000, 6_000_000]) }, // another agent, the same second
      { second: 8, rttHist: encodeValues([30_000]) },
    ]);
    const expected = new Array<number>(RTT_BUCKET_BOUNDS_SEC.length + 1).fill(0);
    for (const [ms, count] of [
      [0.25, 2],
      [0.5, 1],
      [1, 1],
      [2, 1],
      [10, 2],
      ["+Inf", 1],
    ] as const)
      expected[bucketOf(ms)] = count;
    expect(byIndex.get(7)!.counts).toEqual(expected);
    expect(byIndex.get(7)!.count).toBe(8);
    expect(byIndex.get(8)!.counts[bucketOf(50)]).toBe(1);
    expect([...byIndex.keys()].sort()).toEqual([7, 8]);
  });

  it("a value whose HDR bucket reaches past a bound counts above it, as the report's percentiles read it", () => {
    // 5,000 µs shares an HDR bucket (4 µs wide at this magnitude) with 5,001..5,003: the report reads it as 5.003 ms.
    const buckets = rttBucketsBySecond([{ second: 1, rttHist: encodeValues([5_000]) }]).get(1)!;
    expect(buckets.counts[bucketOf(10)]).toBe(1);
    expect(buckets.counts[bucketOf(5)]).toBe(0);
  });

  it("sums the HDR mean times the count, within HDR's precision of the exact sum", () => {
    const values = [300, 1_200, 4_800, 90_000];
    const histogram = emptyHistogram();
    addEncoded(histogram, encodeValues(values));
    const exact = values.reduce((a, b) => a + b, 0) / 1e6;
    expect(Math.abs(bucketsOfHistogram(histogram).sumSec - exact) / exact).toBeLessThan(0.001);
  });

  it("the report's p99 lies in the bucket where the cumulative count first reaches 99%", () => {
    const values = Array.from({ length: 1_000 }, (_, i) => 200 + i * i * 3); // 0.2 ms to ~3 s, skewed
    const histogram = emptyHistogram();
    addEncoded(histogram, encodeValues(values));
    const p99Sec = latencyPercentiles(histogram).p99Ms! / 1000;
    const { counts, count } = bucketsOfHistogram(histogram);
    let cumulative = 0;
    const crossing = counts.findIndex((c) => {
      cumulative += c;
      return cumulative >= 0.99 * count;
    });
    expect(p99Sec).toBeLessThanOrEqual(RTT_BUCKET_BOUNDS_SEC[crossing] ?? Infinity);
    expect(p99Sec).toBeGreaterThan(RTT_BUCKET_BOUNDS_SEC[crossing - 1] ?? 0);
  });

  it("adds running totals bucket by bucket", () => {
    const one = rttBucketsBySecond([{ second: 1, rttHist: encodeValues([400]) }]).get(1)!;
    const total = addRttBuckets(addRttBuckets(one, one), one);
    expect(total.counts[bucketOf(0.5)]).toBe(3);
    expect(total.count).toBe(3);
    expect(one.count).toBe(1); // inputs unchanged
  });
});
