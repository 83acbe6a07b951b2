import protobuf from "protobufjs";
import snappy from "snappyjs";
import type { ExportSeries, HistogramSeries, ScalarSeries } from "@throng/core/metrics-export/export-series";

// Prometheus remote write 1.0 (prompb.WriteRequest, the fields a client sends): labels sorted by name with
// `__name__` among them, samples oldest first, the body snappy block-compressed.
const root = protobuf.Root.fromJSON({
  nested: {
    prometheus: {
      nested: {
        WriteRequest: { fields: { timeseries: { rule: "repeated", type: "TimeSeries", id: 1 } } },
        TimeSeries: {
          fields: {
            labels: { rule: "repeated", type: "Label", id: 1 },
            samples: { rule: "repeated", type: "Sample", id: 2 },
          },
        },
        Label: { fields: { name: { type: "string", id: 1 }, value: { type: "string", id: 2 } } },
        Sample: { fields: { value: { type: "double", id: 1 }, timestamp: { type: "int64", id: 2 } } },
      },
    },
  },
});
const WriteRequest = root.lookupType("prometheus.WriteRequest");

/** The HTTP headers remote write requires besides auth. */
export const REMOTE_WRITE_HEADERS = {
  "content-type": "application/x-protobuf",
  "content-encoding": "snappy",
  "x-prometheus-remote-write-version": "0.1.0",
};

/**
 * A histogram as the classic Prometheus series remote write 1.0 can carry: cumulative `_bucket{le}` counters
 * (ending with le="+Inf", equal to `_count`), `_count` and `_sum`.
 */
function classicSeries(s: HistogramSeries): ScalarSeries[] {
  const counter = (
    suffix: string,
    extra: Record<string, string>,
    value: (sample: HistogramSeries["samples"][number]) => number,
  ): ScalarSeries => ({
    name: `${s.name}${suffix}`,
    kind: "counter",
    unit: s.unit,
    labels: { ...s.labels, ...extra },
    startMs: s.startMs,
    samples: s.samples.map((sample) => ({ timestampMs: sample.timestampMs, value: value(sample) })),
  });
  const les = [...s.bounds.map(String), "+Inf"];
  return [
    ...les.map((le, i) =>
      counter("_bucket", { le }, (sample) => sample.counts.slice(0, i + 1).reduce((a, b) => a + b, 0)),
    ),
    counter("_count", {}, (sample) => sample.count),
    counter("_sum", {}, (sample) => sample.sumSec),
  ];
}

/** One remote-write body (protobuf, snappy-compressed) for these series. */
export function encodeRemoteWrite(series: readonly ExportSeries[]): Uint8Array {
  const timeseries = series
    .flatMap((s) => (s.kind === "histogram" ? classicSeries(s) : [s]))
    .map((s) => ({
      labels: Object.entries({ ...s.labels, __name__: s.name })
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, value]) => ({ name, value })),
      samples: [...s.samples]
        .sort((a, b) => a.timestampMs - b.timestampMs)
        .map((sample) => ({ value: sample.value, timestamp: sample.timestampMs })),
    }));
  return snappy.compress(WriteRequest.encode(WriteRequest.fromObject({ timeseries })).finish());
}

/** The inverse, for tests: the series a body carries. */
export function decodeRemoteWrite(
  body: Uint8Array,
): { labels: { name: string; value: string }[]; samples: { value: number; timestamp: number }[] }[] {
  const request = WriteRequest.toObject(WriteRequest.decode(snappy.uncompress(body)), {
    longs: Number,
    defaults: true,
  }) as {
    timeseries: { labels: { name: string; value: string }[]; samples: { value: number; timestamp: number }[] }[];
  };
  return request.timeseries;
}
