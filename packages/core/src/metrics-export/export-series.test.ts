import { describe, expect, it } from "vitest";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { encodeValues } from "../metrics/histogram";
import { NO_TOTALS, seriesOfSeconds, settledSeconds, type HistogramSeries } from "./export-series";
import { rttBucketsBySecond } from "./rtt-buckets";

const labels = { run_id: "r", plan: "p", scenario: "ping-pong", org: "o" };
const point = (t: number, over: Partial<SeriesPoint> = {}): SeriesPoint => ({
  t,
  agents: 2,
  clients: 10,
  connections: 10,
  messagesSentPerSec: 100 + t,
  messagesReceivedPerSec: 99,
  bytesSentPerSec: 6400,
  bytesReceivedPerSec: 6400,
  errors: t % 2,
  rttP50Ms: 1.5,
  rttP99Ms: 4,
  rttMaxMs: null,
  ...over,
});

describe("seriesOfSeconds", () => {
  it("stamps each sample with its second, turns ms into seconds, leaves out unmeasured values, and counts totals on from the last push", () => {
    const first = seriesOfSeconds([point(10), point(11)], labels, NO_TOTALS, 9_500);
    const byKey = new Map(first.series.map((s) => [`${s.name}${s.labels.quantile ?? ""}`, s]));
    expect(byKey.get("throng_rtt_seconds0.99")!.samples).toEqual([
      { timestampMs: 10_000, value: 0.004 },
      { timestampMs: 11_000, value: 0.004 },
    ]);
    expect(byKey.has("throng_rtt_seconds1")).toBe(false); // no max measured
    expect(byKey.get("throng_messages_sent_total")).toMatchObject({
      kind: "counter",
      startMs: 9_500,
      samples: [
        { timestampMs: 10_000, value: 110 },
        { timestampMs: 11_000, value: 221 },
      ],
    });
    expect(byKey.get("throng_connections")!.labels).toEqual(labels);
    const next = seriesOfSeconds([point(12)], labels, first.totals, 9_500);
    expect(next.series.find((s) => s.name === "throng_messages_sent_total")!.samples).toEqual([
      { timestampMs: 12_000, value: 333 },
    ]);
    expect(next.totals).toMatchObject({ messagesSent: 333, messagesReceived: 297, errors: 1 });
  });

  it("sends the RTT histogram cumulative from the run's start, carried across pushes, repeating it through a second without round trips", () => {
    const rtt = rttBucketsBySecond([
      { second: 10, rttHist: encodeValues([400, 3_000]) },
      { second: 12, rttHist: encodeValues([400]) },
    ]);
    const histogramOf = (series: readonly { name: string }[]) =>
      series.find((s) => s.name === "throng_rtt_histogram_seconds") as HistogramSeries;
    const first = seriesOfSeconds([point(10), point(11)], labels, NO_TOTALS, 9_500, rtt);
    expect(histogramOf(first.series)).toMatchObject({ kind: "histogram", startMs: 9_500, labels });
    expect(histogramOf(first.series).samples.map((s) => [s.timestampMs, s.count])).toEqual([
      [10_000, 2],
      [11_000, 2],
    ]);
    const next = histogramOf(seriesOfSeconds([point(12)], labels, first.totals, 9_500, rtt).series);
    expect(next.samples.map((s) => s.count)).toEqual([3]);
    expect(next.samples[0]!.counts).toEqual(rtt.get(10)!.counts.map((c, i) => c + rtt.get(12)!.counts[i]!));
    expect(next.samples[0]!.sumSec).toBeCloseTo(rtt.get(10)!.sumSec + rtt.get(12)!.sumSec, 9);
  });
});

describe("settledSeconds", () => {
  const points = [point(10), point(11), point(12, { agents: 1 }), point(13)];
  const live = { ended: false, loadShards: 2, nowMs: 20_000, settleMs: 2_000 };
  it("a live run sends complete seconds in order and stops at the first one still missing an agent", () => {
    expect(settledSeconds(points, null, live).map((p) => p.t)).toEqual([10, 11]);
    expect(settledSeconds(points, 11, live)).toEqual([]);
  });
  it("holds back a complete second until it is a moment old", () => {
    expect(settledSeconds(points, null, { ...live, nowMs: 13_500 }).map((p) => p.t)).toEqual([10]);
  });
  it("an ended run sends everything after the watermark", () => {
    expect(settledSeconds(points, 10, { ...live, ended: true }).map((p) => p.t)).toEqual([11, 12, 13]);
  });
});
