import type { FastifyInstance } from "fastify";
import { ThrongError } from "@throng/protocol/errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** The SAML ACS: the identity provider's page posts the signed assertion from its own origin; the signature is the proof. */
const SAML_ACS_PREFIX = "/api/auth/sso/saml2/sp/acs/";

/**
 * CSRF: a change made with the session cookie must come from the web origin (browsers always send Origin
 * on cross-site POSTs). Token-authenticated calls (CLI, CI) carry no cookie and are not affected.
 */
export function registerCsrfGuard(app: FastifyInstance, webOrigin: string) {
  const allowed = new URL(webOrigin).origin;
  app.addHook("onRequest", async (request) => {
    if (
      SAFE_METHODS.has(request.method) ||
      !request.headers.cookie ||
      request.headers.authorization ||
      request.url.startsWith(SAML_ACS_PREFIX)
    )
      return;
    const origin =
      request.headers.origin ?? (request.headers.referer ? new URL(request.headers.referer).origin : undefined);
    if (origin !== allowed) {
      throw new ThrongError(
        "forbidden",
        `Cross-site request refused: changes with a session cookie must come from ${allowed}`,
      );
    }
  });
}

/** Security headers on every API answer (JSON, event streams and the installer alike). */
export function registerSecurityHeaders(app: FastifyInstance, production: boolean) {
  app.addHook("onSend", async (request, reply, payload) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "no-referrer");
    reply.header("x-frame-options", "DENY");
    reply.header("content-security-policy", "default-src 'none'; frame-ancestors 'none'");
    reply.header("cross-origin-resource-policy", "same-site");
    if (production) reply.header("strict-transport-security", "max-age=31536000; includeSubDomains");
    if (request.url.startsWith("/api/") && !reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    return payload;
  });
}
