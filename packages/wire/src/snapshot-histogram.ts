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

/** A ZigZag LEB128 (≤ 9 bytes) integer at `at`; returns the value and the next offset. */
function readZigZag(bytes: Buffer, at: number): [number, number] {
  let value = 0;
  let factor = 1;
  for (let i = 0; i < 9; i++) {
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * factor;
    factor *= 128;
    if ((byte & 0x80) === 0) break;
  }
  return [value % 2 === 0 ? value / 2 : -(value + 1) / 2, at];
}

/** Maps an encoding's bucket index to its value: the same for every histogram of the agents' precision. */
let reference: hdr.JsHistogram | undefined;

/**
 * Walks one encoded HDR histogram (V2, compressed, base64) without building a histogram for it: `visit` gets each
 * non-empty bucket at its highest equivalent value (µs), what a decoded histogram's `add` records, so percentiles
 * and max read from what is visited are the histogram's own. An encoding with another precision is decoded by the
 * library and handed to `other` instead.
 */
function walkEncoded(
  encoded: string,
  visit: (valueUs: number, count: number) => void,
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
  reference ??= emptyHistogram();
  const mapping = reference;
  const end = Math.min(bytes.length, HEADER_BYTES + payloadBytes);
  let at = HEADER_BYTES;
  let index = 0;
  while (at < end) {
    let count: number;
    [count, at] = readZigZag(bytes, at);
    if (count < 0)
      index -= count; // a run of empty buckets
    else {
      if (count > 0) visit(mapping.highestEquivalentValue(mapping.valueFromIndex(index)), count);
      index += 1;
    }
  }
}

/**
 * Adds one encoded HDR histogram into `into` bucket by bucket. Ingest does this once per snapshot, so it is the hot
 * path: decoding through hdr-histogram-js allocated and scanned a full counts array per snapshot.
 */
export function addEncoded(into: hdr.JsHistogram, encoded: string): void {
  walkEncoded(
    encoded,
    (valueUs, count) => into.recordValueWithCount(valueUs, count),
    (decoded) => into.add(decoded),
  );
}

/** Calls `visit` with each non-empty bucket of one encoded histogram, at its highest equivalent value (µs). */
export function forEachEncodedBucket(encoded: string, visit: (valueUs: number, count: number) => void): void {
  walkEncoded(encoded, visit, (decoded) => {
    for (let index = 0; index < decoded.countsArrayLength; index++) {
      const count = decoded.getCountAtIndex(index);
      if (count > 0) visit(decoded.highestEquivalentValue(decoded.valueFromIndex(index)), count);
    }
  });
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
