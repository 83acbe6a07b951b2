import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { fromNodeHeaders } from "better-auth/node";
import type { RateLimitRule } from "@throng/runtime/rate-limit";
import { enforceRateLimit } from "../http/rate-limit";
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

/** The SSO plugin's return paths: the browser arrives from the identity provider (OIDC callback, SAML ACS). */
const SSO_RETURN = /^\/api\/auth\/sso\/(callback|saml2\/sp\/acs)\//;

/**
 * A failed SSO return that Better Auth answers with JSON (an unverified domain, an unreadable response) would strand
 * the browser on a JSON page: it goes to the sign-in page instead, which says in words what went wrong.
 */
async function ssoFailureRedirect(response: Response): Promise<string> {
  let code = `http_${response.status}`;
  let description = "";
  try {
    const body = (await response.clone().json()) as { code?: unknown; message?: unknown };
    if (typeof body.code === "string") code = body.code.toLowerCase();
    if (typeof body.message === "string") description = body.message;
  } catch {
    // not JSON: the status says it
  }
  return `/sign-in?${new URLSearchParams({ error: code, ...(description ? { error_description: description } : {}) })}`;
}

const SAML_ACS = /^\/api\/auth\/sso\/saml2\/sp\/acs\/([^/?]+)/;
/** The plugin's catch-all codes for a refused SAML response, which Throng explains more precisely when it can. */
const VAGUE_SAML_ERRORS = new Set(["saml_error", "invalid_saml_response"]);

/**
 * A SAML response the plugin refused with a catch-all code goes to the sign-in page with the cause instead (an
 * unsigned or forged assertion, clock skew, an expired assertion), so the page can say what to do.
 */
async function explainedSamlFailure(
  deps: Pick<ApiDeps, "sso">,
  path: string,
  body: unknown,
  location: string | null,
): Promise<string | null> {
  const providerId = SAML_ACS.exec(path)?.[1];
  if (!providerId || !location || typeof body !== "string") return null;
  const target = new URL(location, "http://throng.invalid");
  if (!target.pathname.endsWith("/sign-in") || !VAGUE_SAML_ERRORS.has(target.searchParams.get("error") ?? ""))
    return null;
  const samlResponse = new URLSearchParams(body).get("SAMLResponse");
  const failure = samlResponse
    ? await deps.sso.signIn.explainSamlFailure(decodeURIComponent(providerId), samlResponse)
    : null;
  if (!failure) return null;
  target.searchParams.set("error", failure.code);
  target.searchParams.set("error_description", failure.description);
  return location.startsWith("/") ? `${target.pathname}${target.search}` : target.toString();
}

/** Better Auth's own endpoints (sign-up, sign-in, sign-out, session, SSO returns), rate limited and bridged to a fetch Request. */
export async function authRoutes(
  app: FastifyInstance,
  deps: Pick<ApiDeps, "auth" | "rateLimiter" | "rateLimits" | "sso">,
) {
  const limit = (bucket: string, key: string, rule: RateLimitRule, reply: FastifyReply) =>
    enforceRateLimit(deps.rateLimiter, reply, { bucket, key, rule, tooMany: "Too many attempts" });

  async function rateLimit(request: FastifyRequest, reply: FastifyReply) {
    const path = request.url.split("?")[0];
    const email =
      typeof (request.body as { email?: unknown })?.email === "string"
        ? (request.body as { email: string }).email.toLowerCase()
        : "";
    if (path === "/api/auth/sign-in/email") {
      await limit("sign-in-ip", request.ip, deps.rateLimits.signIn, reply);
      if (email) await limit("sign-in-email", email, deps.rateLimits.signIn, reply);
    }
    if (path === "/api/auth/sign-up/email") await limit("sign-up-ip", request.ip, deps.rateLimits.signUp, reply);
  }

  // The SAML ACS is a form post from the identity provider's page: passed to Better Auth as it came.
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) =>
    done(null, body),
  );

  app.route({
    method: ["GET", "POST"],
    url: "/api/auth/*",
    config: {
      doc: {
        summary: "Better Auth: sign-up, sign-in, sign-out, session (see better-auth's docs)",
        access: "public",
        errors: [401, 403, 404, 422, 429],
        foreignErrors: true,
      },
    },
    async handler(request, reply) {
      if (request.method === "POST") await rateLimit(request, reply);
      const url = new URL(request.url, `http://${request.headers.host ?? "localhost"}`);
      const hasBody = request.method !== "GET" && request.body !== undefined;
      const response = await deps.auth.handler(
        new Request(url, {
          method: request.method,
          headers: fromNodeHeaders(request.headers),
          ...(hasBody ? { body: typeof request.body === "string" ? request.body : JSON.stringify(request.body) } : {}),
        }),
      );
      if (response.status >= 400 && SSO_RETURN.test(url.pathname))
        return reply.redirect(await ssoFailureRedirect(response), 302);
      const explained =
        response.status === 302
          ? await explainedSamlFailure(deps, url.pathname, request.body, response.headers.get("location"))
          : null;
      reply.status(response.status);
      for (const cookie of response.headers.getSetCookie()) reply.header("set-cookie", cookie);
      response.headers.forEach((value, key) => {
        if (key !== "set-cookie" && key !== "content-length") reply.header(key, value);
      });
      if (explained) reply.header("location", explained);
      // No body is no body (Better Auth's 404), not the JSON text "null".
      return response.body ? reply.send(withoutSessionToken(await response.text())) : reply.send();
    },
  });
}
