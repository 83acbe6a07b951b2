import {
  decodeFromCompressedBase64,
  encodeIntoCompressedBase64,
  Int32Histogram,
  type Histogram,
} from "hdr-histogram-js";

/** Round trips above this are clamped; a minute is far past any timeout a game client would use. */
export const MAX_TRACKED_US = 60_000_000;

/**
 * hdr-histogram-js finds a value's slot with Math.log2 and two Math.pow per record: in S2 that was 2% of the
 * agent's CPU per echo, the largest user-space item after the syscalls. For the integers recorded here (1 to
 * MAX_TRACKED_US, below 2^31) clz32 and shifts give the same slot: floor(log2(v)) is 31 - clz32(v), and
 * floor(v / 2^k) is v >>> k. Everything else (encoding, merging, percentiles) is the library's own.
 */
export class LatencyHistogram extends Int32Histogram {
  override countsArrayIndex(value: number): number {
    if (value < 0 || value >= 0x8000_0000 || !Number.isInteger(value)) return super.countsArrayIndex(value);
    const bucketIndex = Math.max(31 - Math.clz32(value) - this.subBucketHalfCountMagnitude - this.unitMagnitude, 0);
    const subBucketIndex = value >>> (bucketIndex + this.unitMagnitude);
    return ((bucketIndex + 1) << this.subBucketHalfCountMagnitude) + subBucketIndex - this.subBucketHalfCount;
  }
}

/** A latency histogram in microseconds, 3 significant digits: what the server merges across agents. */
export function createLatencyHistogram(): Histogram {
  const histogram = new LatencyHistogram(1, MAX_TRACKED_US, 3);
  histogram.autoResize = false;
  return histogram;
}

/** Records one value, clamped into the tracked range so one outlier can never throw. */
export function recordMicros(histogram: Histogram, micros: number): void {
  const value = Math.min(MAX_TRACKED_US, Math.max(1, Math.round(micros)));
  histogram.recordValue(value);
}

/** The wire form in MetricSnapshot.histograms (compressed, base64). */
export function encodeHistogram(histogram: Histogram): string {
  return encodeIntoCompressedBase64(histogram);
}

export function decodeHistogram(encoded: string): Histogram {
  return decodeFromCompressedBase64(encoded);
}
