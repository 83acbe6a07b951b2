import type { FastifyInstance } from "fastify";
import { ThrongError } from "@throng/protocol/errors";
import { METRICS_UNAUTHORISED_MESSAGE, metricsScrapeAllowed } from "@throng/runtime/metrics";
import type { ApiDeps } from "../services";

/**
 * GET /metrics: Prometheus text exposition. Outside any session (a scraper has none); behind a bearer token only
 * when METRICS_TOKEN is set. Not under /api/, so the web's proxy never forwards it to browsers.
 */
export async function metricsRoutes(app: FastifyInstance, deps: Pick<ApiDeps, "metrics">) {
  const { registry, token } = deps.metrics;
  app.get("/metrics", { config: { doc: { summary: "Prometheus metrics of this api process (Authorization: Bearer <METRICS_TOKEN> when one is set)", access: "public", produces: "text/plain", errors: [401] } } }, async (request, reply) => {
    if (!metricsScrapeAllowed(request.headers.authorization, token)) throw new ThrongError("unauthenticated", METRICS_UNAUTHORISED_MESSAGE);
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
