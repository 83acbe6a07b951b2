import Fastify, { type FastifyBaseLogger } from "fastify";
import { attachAgentGateway } from "./gateway/agent-gateway";
import { registerErrorHandler } from "./http/errors";
import { agentInstallRoutes } from "./routes/agent-install.routes";
import { authRoutes } from "./routes/auth.routes";
import { healthRoutes } from "./routes/health.routes";
import { liveRoutes } from "./routes/live.routes";
import { orgRoutes } from "./routes/org.routes";
import type { ApiDeps } from "./services";

/** Builds the whole API around its dependencies; main.ts and the integration tests both call this. */
export async function buildApp(deps: ApiDeps, options: { logger: FastifyBaseLogger }) {
  const app = Fastify({ loggerInstance: options.logger, bodyLimit: 1 << 20, trustProxy: true });
  // An empty JSON body (a POST with no payload) is "no body", not a parse error.
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString();
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      const error = Object.assign(new Error("Request body is not valid JSON"), { statusCode: 400 });
      done(error, undefined);
    }
  });
  registerErrorHandler(app);
  await app.register(healthRoutes, deps);
  await app.register(authRoutes, deps);
  await app.register(orgRoutes, deps);
  await app.register(liveRoutes, deps);
  await app.register(agentInstallRoutes, deps.install);
  const gateway = attachAgentGateway(app, deps);
  return Object.assign(app, { gateway });
}
