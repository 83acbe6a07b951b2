import type { FastifyInstance } from "fastify";
import { ThrongError } from "@throng/protocol/errors";
import { metricsRefusal, metricsScrapeAllowed } from "@throng/runtime/metrics";
import type { ApiDeps } from "../services";

/**
 * GET /metrics: Prometheus text exposition. Outside any session (a scraper has none); behind METRICS_TOKEN as a
 * bearer token, and without one open only on a loopback-only listener (runtime/metrics.ts, `metricsAccess`). Not
 * under /api/, so the web's proxy never forwards it to browsers.
 */
export async function metricsRoutes(app: FastifyInstance, deps: Pick<ApiDeps, "metrics">) {
  const { registry, access } = deps.metrics;
  app.get(
    "/metrics",
    {
      config: {
        doc: {
          summary:
            "Prometheus metrics of this api process (Authorization: Bearer <METRICS_TOKEN>; without METRICS_TOKEN, answered only on a loopback-only listener)",
          access: "public",
          produces: "text/plain",
          errors: [401],
        },
      },
    },
    async (request, reply) => {
      if (!metricsScrapeAllowed(request.headers.authorization, access))
        throw new ThrongError("unauthenticated", metricsRefusal(access));
      return reply.type(registry.contentType).send(await registry.metrics());
    },
  );
}
