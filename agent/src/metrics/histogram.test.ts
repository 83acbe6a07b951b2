import { build, Int32Histogram } from "hdr-histogram-js";
import { describe, expect, it } from "vitest";
import { createLatencyHistogram, encodeHistogram, LatencyHistogram, MAX_TRACKED_US, recordMicros } from "./histogram";

describe("LatencyHistogram (hdr-histogram-js with an integer slot lookup)", () => {
  const library = new Int32Histogram(1, MAX_TRACKED_US, 3);
  const fast = new LatencyHistogram(1, MAX_TRACKED_US, 3);

  it("puts every value in the slot the library's log2/pow lookup does", () => {
    const values: number[] = [];
    for (let v = 0; v <= 70_000; v += 1) values.push(v);
    for (let bit = 1; bit < 31; bit += 1) values.push(2 ** bit - 1, 2 ** bit, 2 ** bit + 1);
    let seed = 7;
    for (let i = 0; i < 100_000; i += 1) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      values.push(seed % (MAX_TRACKED_US + 1));
    }
    const differing = values.filter((value) => fast.countsArrayIndex(value) !== library.countsArrayIndex(value));
    expect(differing).toEqual([]);
  });

  it("encodes the same as the library's own histogram after the same records, so the server merges it alike", () => {
    const ours = createLatencyHistogram();
    const theirs = build({
      bitBucketSize: 32,
      autoResize: false,
      lowestDiscernibleValue: 1,
      highestTrackableValue: MAX_TRACKED_US,
      numberOfSignificantValueDigits: 3,
    });
    for (const micros of [0.2, 1, 999.6, 1_024, 65_535, 123_456.7, 5e6, MAX_TRACKED_US, 9e9]) {
      recordMicros(ours, micros);
      recordMicros(theirs, micros);
    }
    expect(encodeHistogram(ours)).toBe(encodeHistogram(theirs));
    expect(ours.getValueAtPercentile(99)).toBe(theirs.getValueAtPercentile(99));
  });
});
