import type { MetricsPush } from "@throng/core/metrics-export/metrics-export-service";
import type { ExportSeries } from "@throng/core/metrics-export/export-series";
import { encodeOtlpJson } from "./otlp-json";
import { encodeRemoteWrite, REMOTE_WRITE_HEADERS } from "./remote-write";

/** Samples per request: a long run's end sends its held-back seconds in a few bodies, not one huge one. */
const MAX_SAMPLES_PER_REQUEST = 10_000;

/** Whole series per batch (a series split across bodies would still be in order, but this is simpler to read). */
function batches(series: readonly ExportSeries[]): ExportSeries[][] {
  const out: ExportSeries[][] = [[]];
  let count = 0;
  for (const s of series) {
    if (count > 0 && count + s.samples.length > MAX_SAMPLES_PER_REQUEST) {
      out.push([]);
      count = 0;
    }
    out.at(-1)!.push(s);
    count += s.samples.length;
  }
  return out;
}

/**
 * The workers' push: remote write (protobuf + snappy) or OTLP/HTTP JSON, with the sink's credentials and headers.
 * A non-2xx answer throws with its status and the start of its body (what Prometheus says about a sample).
 */
export const pushMetrics: MetricsPush = async (sink, target, series) => {
  for (const batch of batches(series)) {
    const body = sink === "prometheus" ? encodeRemoteWrite(batch) : JSON.stringify(encodeOtlpJson(batch));
    const headers = {
      ...target.headers,
      ...(sink === "prometheus" ? REMOTE_WRITE_HEADERS : { "content-type": "application/json" }),
      "user-agent": "throng-metrics-export",
      ...(target.authorization ? { authorization: target.authorization } : {}),
    };
    let response: Response;
    try {
      response = await fetch(target.url, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(10_000),
        redirect: "manual",
      });
    } catch (cause) {
      throw new Error(`no answer from ${new URL(target.url).host}: ${(cause as Error).message}`);
    }
    const text = await response.text().catch(() => "");
    if (response.status < 200 || response.status > 299)
      throw new Error(
        `${new URL(target.url).host} answered HTTP ${response.status}${text ? `: ${text.trim().slice(0, 300)}` : ""}`,
      );
  }
};
