import type { FastifyReply } from "fastify";
import { fromNodeHeaders } from "better-auth/node";
import { isAPIError } from "better-auth/api";
import { ThrongError } from "@throng/protocol/errors";
import {
  AddSsoDomain,
  PutSsoProvider,
  PutSsoProviderEnabled,
  PutSsoRequirement,
  SsoDomainParams,
  SsoDomainView,
  SsoProviderParams,
  SsoProviderView,
  SsoSettings,
  SsoSignIn,
  SsoSignInStarted,
} from "@throng/protocol/sso";
import { enforceRateLimit } from "../http/rate-limit";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

/** Where the SSO plugin sends the browser back: Home on success, the sign-in page (with error and error_description) on failure. */
const AFTER_SIGN_IN = "/";
const SIGN_IN_FAILED = "/sign-in";

/**
 * Single sign-on: the settings (email domains proven by DNS TXT, identity providers, Require SSO; admins and owners
 * change them) and the sign-in page's "Sign in with SSO", which hands over to Better Auth's SSO plugin. Transport only.
 */
export async function ssoRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, sso } = deps;
  const member = memberRoutes(app, resolveIdentity);

  member.get("/api/sso", "settings.read", {
    summary: "Single sign-on: domains, identity providers (never their secrets), Require SSO, session lifetimes",
    schema: { response: { 200: SsoSettings } },
    handler: ({ actor }) => sso.settings.settings(actor),
  });

  member.put("/api/sso/requirement", "settings.manage", {
    summary: "Require SSO (members may not use the password form; owners may, audit-logged) or not",
    schema: { body: requestBody(PutSsoRequirement, "SSO requirement"), response: { 200: PutSsoRequirement } },
    errors: [409],
    handler: ({ actor, request }) => sso.settings.setRequirement(actor, request.body),
  });

  member.post("/api/sso/domains", "settings.manage", {
    summary: "Claim an email domain; the answer names the DNS TXT record that proves it",
    schema: { body: requestBody(AddSsoDomain, "domain"), response: { 201: SsoDomainView } },
    answers: [201],
    errors: [409],
    handler: ({ actor, request }) => sso.settings.addDomain(actor, request.body),
  });

  member.post("/api/sso/domains/:domain/verify", "settings.manage", {
    summary: "Look the domain's TXT record up now and mark the domain verified",
    schema: { params: SsoDomainParams, response: { 200: SsoDomainView } },
    errors: [404, 409, 503],
    handler: ({ actor, request }) => sso.settings.verifyDomain(actor, request.params.domain),
  });

  member.delete("/api/sso/domains/:domain", "settings.manage", {
    summary: "Give up an email domain (no provider may still sign it in)",
    schema: { params: SsoDomainParams },
    answers: [204],
    errors: [404, 409],
    handler: ({ actor, request }) => sso.settings.removeDomain(actor, request.params.domain),
  });

  member.post("/api/sso/providers", "settings.manage", {
    summary: "Add an OIDC or SAML identity provider (its secret is sealed and never answered back)",
    schema: { body: requestBody(PutSsoProvider, "identity provider"), response: { 201: SsoProviderView } },
    answers: [201],
    errors: [409, 503],
    handler: ({ actor, request }) => sso.settings.addProvider(actor, request.body),
  });

  member.put("/api/sso/providers/:id", "settings.manage", {
    summary: "Change an identity provider (a secret left out keeps its stored value)",
    schema: {
      params: SsoProviderParams,
      body: requestBody(PutSsoProvider, "identity provider"),
      response: { 200: SsoProviderView },
    },
    errors: [404, 409, 503],
    handler: ({ actor, request }) => sso.settings.changeProvider(actor, request.params.id, request.body),
  });

  member.put("/api/sso/providers/:id/enabled", "settings.manage", {
    summary: "Turn an identity provider off (it keeps its settings and signs nobody in) or on again",
    schema: {
      params: SsoProviderParams,
      body: requestBody(PutSsoProviderEnabled, "provider switch"),
      response: { 200: PutSsoProviderEnabled },
    },
    errors: [404, 409],
    handler: ({ actor, request }) => sso.settings.setProviderEnabled(actor, request.params.id, request.body),
  });

  member.delete("/api/sso/providers/:id", "settings.manage", {
    summary: "Remove an identity provider; sessions opened through it run to their end",
    schema: { params: SsoProviderParams },
    answers: [204],
    errors: [404],
    handler: ({ actor, request }) => sso.settings.removeProvider(actor, request.params.id),
  });

  app.post(
    "/api/sso/sign-in",
    {
      schema: { body: requestBody(SsoSignIn, "SSO sign-in"), response: { 200: SsoSignInStarted } },
      config: {
        doc: {
          summary:
            "Sign in with SSO: the identity provider for a work email's verified domain, and where the browser goes next",
          access: "public",
          errors: [404, 409, 429, 503],
        },
      },
    },
    async (request, reply) => {
      await enforceRateLimit(deps.rateLimiter, reply, {
        bucket: "sign-in-ip",
        key: request.ip,
        rule: deps.rateLimits.signIn,
        tooMany: "Too many attempts",
      });
      const { email } = request.body;
      const provider = await sso.signIn.providerForEmail(email);
      return startSignIn(deps, reply, {
        providerId: provider.providerId,
        name: provider.name,
        email,
        headers: fromNodeHeaders(request.headers),
      });
    },
  );
}

/** Asks the SSO plugin for the provider's sign-in URL; its state cookie goes back with the answer. */
async function startSignIn(
  deps: ApiDeps,
  reply: FastifyReply,
  input: { providerId: string; name: string; email: string; headers: Headers },
): Promise<SsoSignInStarted> {
  try {
    const { headers, response } = await deps.auth.api.signInSSO({
      body: {
        providerId: input.providerId,
        callbackURL: AFTER_SIGN_IN,
        errorCallbackURL: SIGN_IN_FAILED,
        loginHint: input.email,
      },
      headers: input.headers,
      returnHeaders: true,
    });
    for (const cookie of headers.getSetCookie()) reply.header("set-cookie", cookie);
    return { url: response.url, provider: input.name };
  } catch (error) {
    if (!isAPIError(error)) throw error;
    const status = Number(error.statusCode);
    if (status >= 500 || error.body?.code?.startsWith?.("DISCOVERY")) {
      throw new ThrongError(
        "unavailable",
        `${input.name}, your identity provider, could not be reached (${error.message}): try again in a minute; if it persists, ask your Throng admin to check the provider under Settings → Single sign-on`,
      );
    }
    throw new ThrongError(
      "conflict",
      `${input.name} cannot sign you in right now (${error.message}): ask your Throng admin to check the provider under Settings → Single sign-on`,
    );
  }
}
