// Typed calls for the metrics export settings (routes in apps/api/src/routes/metrics-export.routes.ts).
import {
  MetricsExportSettings,
  MetricsExportSinkView,
  type MetricsSink,
  type PutMetricsExportSink,
} from "@throng/protocol/metrics-export";
import { apiRequest } from "../shared/api-client";

export const metricsExportApi = {
  settings: (signal?: AbortSignal) =>
    apiRequest("GET", "/api/metrics-export", MetricsExportSettings, undefined, signal),
  /** Secrets left out keep the stored ones (the page never has them). */
  put: (sink: MetricsSink, body: PutMetricsExportSink) =>
    apiRequest("PUT", `/api/metrics-export/${sink}`, MetricsExportSinkView, body),
  remove: (sink: MetricsSink) => apiRequest<void>("DELETE", `/api/metrics-export/${sink}`, null),
  /** One sample pushed by the workers; the outcome shows as the sink's last status. */
  test: (sink: MetricsSink) => apiRequest("POST", `/api/metrics-export/${sink}/test`, MetricsExportSinkView),
};
