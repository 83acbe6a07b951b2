import * as hdr from "hdr-histogram-js";

export interface LatencyPercentiles {
  count: number;
  p50Ms: number | null;
  p90Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

/** Merges encoded HDR histograms (µs) into one; merging, never averaging, keeps percentiles true across agents. */
export function mergeEncoded(encoded: readonly string[]): hdr.Histogram {
  const merged = hdr.build({ bitBucketSize: 64, autoResize: true, numberOfSignificantValueDigits: 3 });
  for (const item of encoded) {
    if (!item) continue;
    const histogram = hdr.decodeFromCompressedBase64(item, 64);
    merged.add(histogram);
  }
  return merged;
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
