import * as hdr from "hdr-histogram-js";
import { describe, expect, it } from "vitest";
import { addEncoded, emptyHistogram, EncodedMerge, encodeValues, latencyPercentiles } from "./snapshot-histogram";

/** A histogram of the library's own, keeping `digits` significant digits. */
function libraryHistogram(digits: 2 | 3) {
  return hdr.build({ bitBucketSize: 64, autoResize: true, numberOfSignificantValueDigits: digits });
}

/** The same pseudo-random numbers in [0, 1) on every run, from `seed` (a linear congruential generator). */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** What merging did before addEncoded: decode each encoding into a histogram, then add it. */
function libraryMerge(encoded: readonly string[]) {
  const merged = libraryHistogram(3);
  for (const item of encoded) merged.add(hdr.decodeFromCompressedBase64(item, 64));
  return merged;
}

describe("addEncoded", () => {
  it("merges encoded histograms to the same counts, percentiles and max as decoding and adding them", () => {
    const random = seededRandom(7);
    const encoded = Array.from({ length: 40 }, (_, i) =>
      encodeValues(
        Array.from({ length: 1 + (i % 7) * 30 }, () =>
          Math.round(50 + random() ** 4 * (i % 3 === 0 ? 60_000_000 : 30_000)),
        ),
      ),
    );
    encoded.push(encodeValues([]), encodeValues([1]), encodeValues([2 ** 40]));
    const merged = emptyHistogram();
    for (const item of encoded) addEncoded(merged, item);
    const expected = libraryMerge(encoded);
    expect(merged.totalCount).toBe(expected.totalCount);
    expect(latencyPercentiles(merged)).toEqual(latencyPercentiles(expected));
    for (const p of [1, 10, 25, 50, 75, 90, 99, 99.9, 100])
      expect(merged.getValueAtPercentile(p)).toBe(expected.getValueAtPercentile(p));
  });

  it("takes an encoding with another precision through the library", () => {
    const other = libraryHistogram(2);
    for (const value of [100, 2_000, 30_000]) other.recordValue(value);
    const encoded = hdr.encodeIntoCompressedBase64(other);
    const merged = emptyHistogram();
    addEncoded(merged, encoded);
    expect(merged.totalCount).toBe(3);
    expect(latencyPercentiles(merged)).toEqual(latencyPercentiles(libraryMerge([encoded])));
  });

  it("refuses what is not an HDR encoding, naming the problem", () => {
    expect(() => addEncoded(emptyHistogram(), Buffer.from("not a histogram at all").toString("base64"))).toThrow(
      /not a compressed V2 HDR encoding/,
    );
  });
});

describe("EncodedMerge", () => {
  it("merges to the same histogram as adding each encoding bucket by bucket, whatever the precision", () => {
    const random = seededRandom(11);
    const coarse = libraryHistogram(2);
    for (const value of [100, 2_000, 30_000, 9_000_000]) coarse.recordValue(value);
    const encoded = [
      ...Array.from({ length: 300 }, (_, i) =>
        encodeValues(Array.from({ length: 1 + (i % 9) * 20 }, () => Math.round(20 + random() ** 5 * 80_000_000))),
      ),
      encodeValues([]),
      encodeValues([2 ** 42]),
      hdr.encodeIntoCompressedBase64(coarse),
    ];
    const fast = new EncodedMerge();
    const slow = emptyHistogram();
    for (const item of encoded) {
      fast.add(item);
      addEncoded(slow, item);
    }
    const merged = fast.histogram();
    expect(merged.totalCount).toBe(slow.totalCount);
    expect(merged.maxValue).toBe(slow.maxValue);
    expect(merged.minNonZeroValue).toBe(slow.minNonZeroValue);
    expect(fast.percentiles()).toEqual(latencyPercentiles(slow));
    for (let p = 0; p <= 100; p += 0.5) expect(merged.getValueAtPercentile(p)).toBe(slow.getValueAtPercentile(p));
  });

  it("reads again after more is added: a merge read while a second is still open is not left stale", () => {
    const merge = new EncodedMerge();
    merge.add(encodeValues([1_000, 2_000]));
    expect(merge.percentiles()).toMatchObject({ count: 2, maxMs: 2 });
    merge.add(encodeValues([50_000]));
    expect(merge.percentiles()).toMatchObject({ count: 3, maxMs: 50.015 });
  });
});
