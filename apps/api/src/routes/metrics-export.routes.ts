import {
  MetricsExportSettings,
  MetricsExportSinkView,
  MetricsSinkParams,
  PutMetricsExportSink,
} from "@throng/protocol/metrics-export";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

/** Metrics export settings: the org's Prometheus remote write and OTLP endpoints, and their test button. Transport only. */
export async function metricsExportRoutes(app: ZodFastify, { resolveIdentity, metricsExport }: ApiDeps) {
  const member = memberRoutes(app, resolveIdentity);

  member.get("/api/metrics-export", "settings.read", {
    summary: "Where runs stream their series (credentials shown only as set or not set)",
    schema: { response: { 200: MetricsExportSettings } },
    handler: ({ actor }) => metricsExport.settings(actor),
  });

  member.put("/api/metrics-export/:sink", "settings.manage", {
    summary: "Set up a Prometheus remote write or OTLP endpoint (secrets left out keep their stored value)",
    schema: {
      params: MetricsSinkParams,
      body: requestBody(PutMetricsExportSink, "metrics export settings"),
      response: { 200: MetricsExportSinkView },
    },
    handler: ({ actor, request }) => metricsExport.putSink(actor, request.params.sink, request.body),
  });

  member.delete("/api/metrics-export/:sink", "settings.manage", {
    summary: "Remove a metrics endpoint and its credentials",
    schema: { params: MetricsSinkParams },
    answers: [204],
    handler: ({ actor, request }) => metricsExport.removeSink(actor, request.params.sink),
  });

  member.post("/api/metrics-export/:sink/test", "settings.manage", {
    summary: "Push one test sample through the workers (202; the outcome shows as the endpoint's last status)",
    schema: { params: MetricsSinkParams, response: { 202: MetricsExportSinkView } },
    answers: [202],
    handler: ({ actor, request }) => metricsExport.requestTest(actor, request.params.sink),
  });
}
