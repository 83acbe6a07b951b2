import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { fromNodeHeaders } from "better-auth/node";
import { ThrongError } from "@throng/protocol/errors";
import type { RateLimitRule } from "@throng/runtime/rate-limit";
import { enforceRateLimit } from "../http/rate-limit";
import type { z } from "zod";
import { DISABLED_AUTH_PATHS } from "../auth";
import type { RouteDoc } from "../http/openapi";
import type { ApiDeps } from "../services";

/** Session tokens travel only in the httpOnly cookie; Better Auth also puts them in JSON bodies, which we drop. */
function withoutSessionToken(text: string): string {
  try {
    const json = JSON.parse(text) as unknown;
    if (json && typeof json === "object" && "token" in json) {
      const { token: _token, ...rest } = json as Record<string, unknown>;
      return JSON.stringify(rest);
    }
  } catch {
    // not JSON: pass it on untouched
  }
  return text;
}

/** Better Auth's own endpoints (sign-up, sign-in, sign-out, session), rate limited and bridged to a fetch Request. */
export async function authRoutes(app: FastifyInstance, deps: Pick<ApiDeps, "auth" | "rateLimiter" | "rateLimits">) {
  const limit = (bucket: string, key: string, rule: RateLimitRule, reply: FastifyReply) =>
    enforceRateLimit(deps.rateLimiter, reply, { bucket, key, rule, tooMany: "Too many attempts" });

  async function rateLimit(request: FastifyRequest, reply: FastifyReply) {
    const path = request.url.split("?")[0];
    const email = typeof (request.body as { email?: unknown })?.email === "string" ? (request.body as { email: string }).email.toLowerCase() : "";
    if (path === "/api/auth/sign-in/email") {
      await limit("sign-in-ip", request.ip, deps.rateLimits.signIn, reply);
      if (email) await limit("sign-in-email", email, deps.rateLimits.signIn, reply);
    }
    if (path === "/api/auth/sign-up/email") await limit("sign-up-ip", request.ip, deps.rateLimits.signUp, reply);
  }

  async function handler(request: FastifyRequest, reply: FastifyReply) {
    if (request.method === "POST") await rateLimit(request, reply);
    const url = new URL(request.url, `http://${request.headers.host ?? "localhost"}`);
    const hasBody = request.method !== "GET" && request.body !== undefined;
    const response = await deps.auth.handler(
      new Request(url, {
        method: request.method,
        headers: fromNodeHeaders(request.headers),
        ...(hasBody ? { body: JSON.stringify(request.body) } : {}),
      }),
    );
    reply.status(response.status);
    for (const cookie of response.headers.getSetCookie()) reply.header("set-cookie", cookie);
    response.headers.forEach((value, key) => {
      if (key !== "set-cookie" && key !== "content-length") reply.header(key, value);
    });
    // No body is no body (Better Auth's 404), not the JSON text "null".
    return response.body ? reply.send(withoutSessionToken(await response.text())) : reply.send();
  }

  app.route({
    method: ["GET", "POST"],
    url: "/api/auth/*",
    config: { doc: { summary: "Better Auth: sign-up, sign-in, sign-out, session (see better-auth's docs)", access: "public", errors: [401, 403, 404, 422, 429], foreignErrors: true } },
    handler,
  });

  // The organization plugin's routes are live (the same handler): each is declared with Better Auth's own schemas, so
  // the OpenAPI document lists it and the isolation suite tries it.
  // Signed in first, whatever Better Auth would answer without a session (list-user-invitations said 400).
  const signedIn = async (request: FastifyRequest) => {
    if (!(await deps.auth.api.getSession({ headers: fromNodeHeaders(request.headers) }))) throw new ThrongError("unauthenticated", "Sign in first: Better Auth's organization routes act for the signed-in user");
  };
  for (const endpoint of organizationEndpoints(deps.auth)) {
    app.route({ method: endpoint.method, url: `/api/auth${endpoint.path}`, config: { doc: endpoint.doc }, preHandler: signedIn, handler });
  }
}

interface AuthEndpointLike {
  path?: string;
  options?: { method?: string | string[]; body?: z.ZodType; query?: z.ZodType; metadata?: { SERVER_ONLY?: boolean; openapi?: { description?: string } } };
}

/** Better Auth's organization plugin endpoints that answer over HTTP (not turned off), with their documentation. */
export function organizationEndpoints(auth: ApiDeps["auth"]): { method: "GET" | "POST"; path: string; doc: RouteDoc }[] {
  return Object.values(auth.api as unknown as Record<string, AuthEndpointLike>)
    .filter((endpoint) => endpoint.path?.startsWith("/organization/") && !endpoint.options?.metadata?.SERVER_ONLY && !DISABLED_AUTH_PATHS.includes(endpoint.path))
    .flatMap((endpoint) => [endpoint.options?.method ?? "POST"].flat().filter((method): method is "GET" | "POST" => method === "GET" || method === "POST").map((method) => {
      const path = endpoint.path!;
      const what = endpoint.options?.metadata?.openapi?.description ?? path.slice("/organization/".length).replace(/-/g, " ");
      const doc: RouteDoc = {
        summary: `Better Auth's organization plugin: ${what.charAt(0).toLowerCase()}${what.slice(1)} (see better-auth's docs; the dashboard uses /api/orgs, /api/members and /api/invitations, which the audit log records)`,
        access: "signed-in", errors: [401, 403, 404, 422, 429], foreignErrors: true,
        ...(method === "POST" && endpoint.options?.body ? { body: endpoint.options.body } : {}),
        ...(method === "GET" && endpoint.options?.query ? { foreignQuery: endpoint.options.query } : {}),
      };
      return { method, path, doc };
    }));
}
