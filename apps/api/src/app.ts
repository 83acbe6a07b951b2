import Fastify, { type FastifyBaseLogger } from "fastify";
import { MAX_REQUEST_BODY_BYTES } from "@throng/protocol/api";
import { attachAgentGateway } from "./gateway/agent-gateway";
import { registerCallerBeforeBody } from "./http/caller-first";
import { answerFrameworkError, registerErrorHandler, MAX_PARAM_LENGTH } from "./http/errors";
import { registerCsrfGuard, registerSecurityHeaders } from "./http/guards";
import { createRouteRegistry, openApiDocument } from "./http/openapi";
import { registerRouteInputValidation } from "./http/route-input";
import { registerZodSchemas } from "./http/route-schema";
import { agentInstallRoutes } from "./routes/agent-install.routes";
import { agentRoutes } from "./routes/agents.routes";
import { authRoutes } from "./routes/auth.routes";
import { secretRoutes } from "./routes/secrets.routes";
import { healthRoutes } from "./routes/health.routes";
import { liveRoutes } from "./routes/live.routes";
import { metricsRoutes } from "./routes/metrics.routes";
import { orgAdminRoutes, orgRoutes } from "./routes/org.routes";
import { invitationRoutes } from "./routes/invitations.routes";
import { notificationRoutes } from "./routes/notifications.routes";
import { metricsExportRoutes } from "./routes/metrics-export.routes";
import { planRoutes, planRunRoutes } from "./routes/plans.routes";
import { scheduleRoutes } from "./routes/schedules.routes";
import { reportRoutes } from "./routes/reports.routes";
import { shareLinkRoutes } from "./routes/share-links.routes";
import { estimateRoutes } from "./routes/estimates.routes";
import { runRoutes } from "./routes/runs.routes";
import { scriptRoutes } from "./routes/scripts.routes";
import { ssoRoutes } from "./routes/sso.routes";
import type { ApiDeps } from "./services";

/** Builds the whole API around its dependencies; main.ts and the integration tests both call this. */
export async function buildApp(deps: ApiDeps, options: { logger: FastifyBaseLogger }) {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: MAX_REQUEST_BODY_BYTES,
    trustProxy: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: answerFrameworkError,
  });
  const registry = createRouteRegistry(app);
  // An empty JSON body (a POST with no payload) is "no body", not a parse error.
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString();
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(Object.assign(new Error("Request body is not valid JSON"), { statusCode: 400 }), undefined);
    }
  });
  registerZodSchemas(app);
  registerErrorHandler(app, registry.routes);
  registerRouteInputValidation(app, registry.routes);
  registerCallerBeforeBody(app, deps.resolveIdentity);
  registerCsrfGuard(app, deps.web.origin);
  registerSecurityHeaders(app, deps.web.production);
  // Latency by route pattern (bounded label values); requests no route matched share one label.
  app.addHook("onResponse", async (request, reply) => {
    deps.metrics.requestAnswered(
      request.routeOptions.url ?? "unmatched",
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
  await app.register(healthRoutes, deps);
  await app.register(metricsRoutes, deps);
  await app.register(authRoutes, deps);
  await app.register(orgRoutes, deps);
  await app.register(invitationRoutes, deps);
  await app.register(orgAdminRoutes, deps);
  await app.register(agentRoutes, deps);
  await app.register(planRoutes, deps);
  await app.register(planRunRoutes, deps);
  await app.register(scriptRoutes, deps);
  await app.register(notificationRoutes, deps);
  await app.register(metricsExportRoutes, deps);
  await app.register(secretRoutes, deps);
  await app.register(ssoRoutes, deps);
  await app.register(scheduleRoutes, deps);
  await app.register(reportRoutes, deps);
  await app.register(shareLinkRoutes, deps);
  await app.register(estimateRoutes, deps);
  await app.register(runRoutes, deps);
  await app.register(liveRoutes, deps);
  await app.register(agentInstallRoutes, deps.install);
  app.get("/api/openapi.json", { config: { doc: { summary: "This document", access: "public" } } }, async () =>
    openApiDocument(registry.routes),
  );
  const gateway = attachAgentGateway(app, deps);
  deps.metrics.observeGateway(gateway);
  // A plain object: a Fastify instance is thenable, so awaiting it would drop extra properties.
  return { app, gateway, routeRegistry: registry };
}
