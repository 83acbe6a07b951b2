import type * as hdr from "hdr-histogram-js";
import { addEncoded, emptyHistogram } from "../metrics/histogram";

/**
 * Upper bounds (seconds) of the exported RTT histogram's buckets, +Inf implied after the last: from a loopback
 * quarter millisecond to a 5 s stall, about two buckets per decade, as realtime servers' latencies spread.
 * Fixed, so histograms of every run and agent add up in PromQL. Written in seconds (not ms / 1000) so each `le`
 * label is the same short decimal every push.
 */
export const RTT_BUCKET_BOUNDS_SEC = [
  0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5,
] as const;
const BOUNDS_US = RTT_BUCKET_BOUNDS_SEC.map((sec) => Math.round(sec * 1_000_000));

/** One second's (or a running total's) RTT counts in the exported buckets. */
export interface RttBuckets {
  /** Per bucket, NOT cumulative: one more entry than the bounds, the last for +Inf (OTLP's bucketCounts). */
  counts: number[];
  count: number;
  /** Seconds: the HDR histogram's mean × count (agents send no exact sums). */
  sumSec: number;
}

export const emptyRttBuckets = (): RttBuckets => ({
  counts: new Array<number>(BOUNDS_US.length + 1).fill(0),
  count: 0,
  sumSec: 0,
});

/**
 * An HDR histogram (µs) in the exported buckets. A recorded value falls under a bound when its HDR bucket's
 * highest equivalent value is ≤ the bound: the same value the report's percentiles are read at, so the report's
 * p99 lies in the bucket where a cumulative count crosses 99%.
 */
export function bucketsOfHistogram(histogram: hdr.JsHistogram): RttBuckets {
  const out = emptyRttBuckets();
  for (let index = 0; index < histogram.countsArrayLength; index++) {
    const count = histogram.getCountAtIndex(index);
    if (count === 0) continue;
    const valueUs = histogram.highestEquivalentValue(histogram.valueFromIndex(index));
    const bucket = BOUNDS_US.findIndex((bound) => valueUs <= bound);
    out.counts[bucket === -1 ? BOUNDS_US.length : bucket]! += count;
  }
  out.count = histogram.totalCount;
  out.sumSec = out.count === 0 ? 0 : (histogram.mean * out.count) / 1_000_000;
  return out;
}

/** Each second's RTT buckets from its snapshots' encoded histograms, merged across agents (as the run's series is). */
export function rttBucketsBySecond(rows: readonly { second: number; rttHist: string }[]): Map<number, RttBuckets> {
  const merged = new Map<number, hdr.JsHistogram>();
  for (const row of rows) {
    let histogram = merged.get(row.second);
    if (!histogram) {
      histogram = emptyHistogram();
      merged.set(row.second, histogram);
    }
    addEncoded(histogram, row.rttHist);
  }
  return new Map([...merged].map(([second, histogram]) => [second, bucketsOfHistogram(histogram)]));
}

/** `total` plus `more`, bucket by bucket (a new object). */
export function addRttBuckets(total: RttBuckets, more: RttBuckets): RttBuckets {
  return {
    counts: total.counts.map((c, i) => c + (more.counts[i] ?? 0)),
    count: total.count + more.count,
    sumSec: total.sumSec + more.sumSec,
  };
}
