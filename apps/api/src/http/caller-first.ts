import type { FastifyInstance } from "fastify";
import { authorize } from "@throng/core/orgs/permissions";
import type { ResolveIdentity } from "./actor";
import type { RouteDoc, RouteSchema } from "./openapi";

/**
 * A route's body is parsed by its schema before the handler, but who may call it still answers first, as when core
 * parsed bodies after its permission check: a caller without credentials gets 401 and one whose role lacks the route's
 * permission 403, never a 400 about a body it may not send. The identity is resolved once per request (actor.ts).
 */
export function registerCallerBeforeBody(app: FastifyInstance, resolveIdentity: ResolveIdentity) {
  app.addHook("preValidation", async (request) => {
    const body = (request.routeOptions.schema as RouteSchema | undefined)?.body;
    const doc = (request.routeOptions.config as { doc?: RouteDoc } | undefined)?.doc;
    if (!body || !doc || (doc.access !== "user" && doc.access !== "signed-in")) return;
    const { actor } = await resolveIdentity(request);
    if (doc.permission) authorize(actor, doc.permission);
  });
}
