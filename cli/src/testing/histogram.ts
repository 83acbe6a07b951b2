import * as hdr from "hdr-histogram-js";

/** Tests: an encoded HDR histogram (µs) as agents send it in snapshots; mirrors core's encodeValues. */
export function encodeRttUs(valuesUs: readonly number[]): string {
  const histogram = hdr.build({ bitBucketSize: 64, autoResize: true, numberOfSignificantValueDigits: 3 });
  for (const value of valuesUs) histogram.recordValue(value);
  return hdr.encodeIntoCompressedBase64(histogram);
}
