import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64, type Histogram } from "hdr-histogram-js";

/** Round trips above this are clamped; a minute is far past any timeout a game client would use. */
export const MAX_TRACKED_US = 60_000_000;

/** A latency histogram in microseconds, 3 significant digits: what the server merges across agents. */
export function createLatencyHistogram(): Histogram {
  return build({
    bitBucketSize: 32,
    autoResize: false,
    lowestDiscernibleValue: 1,
    highestTrackableValue: MAX_TRACKED_US,
    numberOfSignificantValueDigits: 3,
  });
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
