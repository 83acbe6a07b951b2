import { inflateSync } from "node:zlib";
import * as hdr from "hdr-histogram-js";

export interface LatencyPercentiles {
  count: number;
  p50Ms: number | null;
  p90Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

/** Every histogram merged here has these: the agent encodes with them (µs, 3 significant digits). */
const LOWEST_DISCERNIBLE = 1;
const SIGNIFICANT_DIGITS = 3;
const V2_COMPRESSED_COOKIE = 0x1c849304;
const V2_COOKIE = 0x1c849303;
const HEADER_BYTES = 40;

/** An empty histogram (µs) that encoded histograms are merged into; merging, never averaging, keeps percentiles true across agents. */
export function emptyHistogram(): hdr.JsHistogram {
  return hdr.build({
    bitBucketSize: 64,
    autoResize: true,
    lowestDiscernibleValue: LOWEST_DISCERNIBLE,
    numberOfSignificantValueDigits: SIGNIFICANT_DIGITS,
  }) as hdr.JsHistogram;
}

/** Maps an encoding's bucket index to its value: the same for every histogram of the agents' precision. */
let reference: hdr.JsHistogram | undefined;
/**
 * Each bucket index's highest equivalent value (µs), filled as far as an encoding has reached: hdr-histogram-js
 * computes it with a few divisions and a power per call, which was most of the cost of walking a stored hour.
 */
let valueOfIndex = new Float64Array(0);

/** The highest equivalent value (µs) of bucket `index` at the agents' precision. */
function valueAtIndex(index: number): number {
  if (index >= valueOfIndex.length) {
    reference ??= emptyHistogram();
    const mapping = reference;
    const grown = new Float64Array(Math.max(index + 1, valueOfIndex.length * 2, 4096));
    grown.set(valueOfIndex);
    for (let i = valueOfIndex.length; i < grown.length; i++)
      grown[i] = mapping.highestEquivalentValue(mapping.valueFromIndex(i));
    valueOfIndex = grown;
  }
  return valueOfIndex[index]!;
}

/**
 * Walks one encoded HDR histogram (V2, compressed, base64) without building a histogram for it: `visit` gets each
 * non-empty bucket's index at the agents' precision (valueAtIndex gives its value) and count. An encoding with
 * another precision is decoded by the library and handed to `other` instead.
 */
function walkEncoded(
  encoded: string,
  visit: (index: number, count: number) => void,
  other: (decoded: hdr.JsHistogram) => void,
): void {
  if (!encoded) return;
  const outer = Buffer.from(encoded, "base64");
  if (outer.length < 8 || (outer.readInt32BE(0) & ~0xf0) !== V2_COMPRESSED_COOKIE)
    throw new Error("histogram is not a compressed V2 HDR encoding");
  const bytes = inflateSync(outer.subarray(8, 8 + outer.readInt32BE(4)));
  if (bytes.length < HEADER_BYTES || (bytes.readInt32BE(0) & ~0xf0) !== V2_COOKIE)
    throw new Error("histogram is not a V2 HDR encoding");
  const payloadBytes = bytes.readInt32BE(4);
  const digits = bytes.readInt32BE(12);
  const lowest = Number(bytes.readBigInt64BE(16));
  if (digits !== SIGNIFICANT_DIGITS || lowest !== LOWEST_DISCERNIBLE) {
    other(hdr.decodeFromCompressedBase64(encoded, 64) as hdr.JsHistogram);
    return;
  }
  const end = Math.min(bytes.length, HEADER_BYTES + payloadBytes);
  let at = HEADER_BYTES;
  let index = 0;
  while (at < end) {
    // A ZigZag LEB128 integer (at most 9 bytes), read in place: a tuple per bucket was a measurable share.
    let value = 0;
    let factor = 1;
    for (let i = 0; i < 9; i++) {
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * factor;
      factor *= 128;
      if ((byte & 0x80) === 0) break;
    }
    const count = value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    if (count < 0)
      index -= count; // a run of empty buckets
    else {
      if (count > 0) visit(index, count);
      index += 1;
    }
  }
}

/**
 * Adds one encoded HDR histogram into `into` bucket by bucket, at each bucket's highest equivalent value (what a
 * decoded histogram's `add` records, so percentiles and max are the histogram's own). Merging many encodings is
 * cheaper through EncodedMerge.
 */
export function addEncoded(into: hdr.JsHistogram, encoded: string): void {
  walkEncoded(
    encoded,
    (index, count) => into.recordValueWithCount(valueAtIndex(index), count),
    (decoded) => into.add(decoded),
  );
}

/**
 * Many encoded histograms merged: their counts summed by bucket index in one array, recorded into a histogram only
 * when read. The same counts, percentiles and max as addEncoded into one histogram (every bucket is recorded at its
 * highest equivalent value either way); recording each bucket of each encoding was the cost of merging a stored hour.
 */
export class EncodedMerge {
  private counts = new Float64Array(0);
  /** Encodings of another precision, merged through the library. */
  private other: hdr.JsHistogram | undefined;
  private built: hdr.JsHistogram | undefined;

  /**
   * Adds one encoding. `onBucket`, when given, sees each of its non-empty buckets: the bucket's index at the agents'
   * precision (-1 for an encoding of another precision), its highest equivalent value (µs) and its count.
   */
  add(encoded: string, onBucket?: (index: number, valueUs: number, count: number) => void): void {
    walkEncoded(
      encoded,
      (index, count) => {
        if (index >= this.counts.length) {
          const grown = new Float64Array(Math.max(index + 1, this.counts.length * 2, 4096));
          grown.set(this.counts);
          this.counts = grown;
        }
        this.counts[index]! += count;
        this.built = undefined;
        onBucket?.(index, valueAtIndex(index), count);
      },
      (decoded) => {
        this.other ??= emptyHistogram();
        this.other.add(decoded);
        this.built = undefined;
        if (onBucket)
          for (let index = 0; index < decoded.countsArrayLength; index++) {
            const count = decoded.getCountAtIndex(index);
            if (count > 0) onBucket(-1, decoded.highestEquivalentValue(decoded.valueFromIndex(index)), count);
          }
      },
    );
  }

  /** The merged histogram (built once per change; the caller must not record into it). */
  histogram(): hdr.JsHistogram {
    if (this.built) return this.built;
    const histogram = emptyHistogram();
    const counts = this.counts;
    for (let index = 0; index < counts.length; index++)
      if (counts[index]! > 0) histogram.recordValueWithCount(valueAtIndex(index), counts[index]!);
    if (this.other) histogram.add(this.other);
    this.built = histogram;
    return histogram;
  }

  percentiles(): LatencyPercentiles {
    return latencyPercentiles(this.histogram());
  }
}

/** Calls `visit` with each non-empty bucket of one encoded histogram, at its highest equivalent value (µs). */
export function forEachEncodedBucket(encoded: string, visit: (valueUs: number, count: number) => void): void {
  walkEncoded(
    encoded,
    (index, count) => visit(valueAtIndex(index), count),
    (decoded) => {
      for (let index = 0; index < decoded.countsArrayLength; index++) {
        const count = decoded.getCountAtIndex(index);
        if (count > 0) visit(decoded.highestEquivalentValue(decoded.valueFromIndex(index)), count);
      }
    },
  );
}

/** Percentiles in milliseconds; null when nothing was recorded. */
export function latencyPercentiles(histogram: hdr.Histogram): LatencyPercentiles {
  const count = histogram.totalCount;
  if (count === 0) return { count: 0, p50Ms: null, p90Ms: null, p99Ms: null, maxMs: null };
  const ms = (us: number) => Math.round(us) / 1000;
  return {
    count,
    p50Ms: ms(histogram.getValueAtPercentile(50)),
    p90Ms: ms(histogram.getValueAtPercentile(90)),
    p99Ms: ms(histogram.getValueAtPercentile(99)),
    maxMs: ms(histogram.maxValue),
  };
}

/** Tests and fixtures: encode a histogram holding the given microsecond values. */
export function encodeValues(valuesUs: readonly number[]): string {
  const histogram = hdr.build({ bitBucketSize: 64, autoResize: true, numberOfSignificantValueDigits: 3 });
  for (const value of valuesUs) histogram.recordValue(value);
  return hdr.encodeIntoCompressedBase64(histogram);
}
