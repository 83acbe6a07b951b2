import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Action } from "@throng/protocol/orgs";
import { THRONG_VERSION } from "@throng/protocol/version";

/**
 * Who may call a route: `public` (no credentials), `user` (session cookie or API token, org-scoped),
 * `signed-in` (a session, any org), `agent` (the agent socket's own credentials).
 */
export type Access = "public" | "user" | "signed-in" | "agent";

/** What each route declares in `config.doc`; the OpenAPI document and the isolation tests read it. */
export interface RouteDoc {
  summary: string;
  access: Access;
  /** The permission the core call checks (documentation; core enforces it). */
  permission?: Action;
  body?: z.ZodType;
  response?: z.ZodType;
}

export interface DocumentedRoute extends RouteDoc {
  method: string;
  url: string;
}

/** Collects every route registered with `config: { doc }`; routes without one fail the boundary tests. */
export function createRouteRegistry(app: FastifyInstance) {
  const routes: DocumentedRoute[] = [];
  const undocumented: string[] = [];
  app.addHook("onRoute", (options) => {
    const methods = [options.method].flat().filter((m) => m !== "HEAD");
    const doc = (options.config as { doc?: RouteDoc } | undefined)?.doc;
    for (const method of methods) {
      if (doc) routes.push({ ...doc, method, url: options.url });
      else undocumented.push(`${method} ${options.url}`);
    }
  });
  return { routes, undocumented };
}

function jsonSchema(schema: z.ZodType) {
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
}

/** OpenAPI 3.1 from the registry: paths, who may call them, bodies and answers from the shared schemas. */
export function openApiDocument(routes: readonly DocumentedRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:(\w+)/g, "{$1}").replace(/\*$/, "{path}");
    const params = [...route.url.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    paths[path] ??= {};
    paths[path]![route.method.toLowerCase()] = {
      summary: route.summary,
      "x-access": route.access,
      ...(route.permission ? { "x-permission": route.permission } : {}),
      ...(params.length ? { parameters: params } : {}),
      ...(route.access === "user" ? { security: [{ session: [] }, { apiToken: [] }] } : {}),
      ...(route.body ? { requestBody: { content: { "application/json": { schema: jsonSchema(route.body) } } } } : {}),
      responses: {
        "200": route.response ? { description: "OK", content: { "application/json": { schema: jsonSchema(route.response) } } } : { description: "OK" },
        default: { description: "ErrorBody { error: { code, message, fields? } }" },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Throng API", version: THRONG_VERSION },
    components: {
      securitySchemes: {
        session: { type: "apiKey", in: "cookie", name: "better-auth.session_token" },
        apiToken: { type: "http", scheme: "bearer", description: "thr_api_... from Settings → API tokens" },
      },
    },
    paths,
  };
}
