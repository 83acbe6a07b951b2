import type { FastifyReply } from "fastify";
import { fromNodeHeaders } from "better-auth/node";
import { isAPIError } from "better-auth/api";
import { ThrongError, parseOrThrow } from "@throng/protocol/errors";
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
import type { ZodFastify } from "../http/route-schema";

/** Where the SSO plugin sends the browser back: Home on success, the sign-in page (with error and error_description) on failure. */
const AFTER_SIGN_IN = "/";
const SIGN_IN_FAILED = "/sign-in";

/**
 * Single sign-on: the settings (email domains proven by DNS TXT, identity providers, Require SSO; admins and owners
 * change them) and the sign-in page's "Sign in with SSO", which hands over to Better Auth's SSO plugin. Transport only.
 */
export async function ssoRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, sso } = deps;

  app.get(
    "/api/sso",
    {
      config: {
        doc: {
          summary: "Single sign-on: domains, identity providers (never their secrets), Require SSO, session lifetimes",
          access: "user",
          permission: "settings.read",
          response: SsoSettings,
        },
      },
    },
    async (request) => {
      return sso.settings.settings((await resolveIdentity(request)).actor);
    },
  );

  app.put(
    "/api/sso/requirement",
    {
      config: {
        doc: {
          summary: "Require SSO (members may not use the password form; owners may, audit-logged) or not",
          access: "user",
          permission: "settings.manage",
          errors: [409],
          body: PutSsoRequirement,
          response: PutSsoRequirement,
        },
      },
    },
    async (request) => {
      return sso.settings.setRequirement((await resolveIdentity(request)).actor, request.body);
    },
  );

  app.post(
    "/api/sso/domains",
    {
      config: {
        doc: {
          summary: "Claim an email domain; the answer names the DNS TXT record that proves it",
          access: "user",
          permission: "settings.manage",
          answers: [201],
          errors: [409],
          body: AddSsoDomain,
          response: SsoDomainView,
        },
      },
    },
    async (request, reply) => {
      return reply.status(201).send(await sso.settings.addDomain((await resolveIdentity(request)).actor, request.body));
    },
  );

  app.post(
    "/api/sso/domains/:domain/verify",
    {
      schema: { params: SsoDomainParams },
      config: {
        doc: {
          summary: "Look the domain's TXT record up now and mark the domain verified",
          access: "user",
          permission: "settings.manage",
          errors: [404, 409, 503],
          response: SsoDomainView,
        },
      },
    },
    async (request) => {
      return sso.settings.verifyDomain((await resolveIdentity(request)).actor, request.params.domain);
    },
  );

  app.delete(
    "/api/sso/domains/:domain",
    {
      schema: { params: SsoDomainParams },
      config: {
        doc: {
          summary: "Give up an email domain (no provider may still sign it in)",
          access: "user",
          permission: "settings.manage",
          answers: [204],
          errors: [404, 409],
        },
      },
    },
    async (request, reply) => {
      await sso.settings.removeDomain((await resolveIdentity(request)).actor, request.params.domain);
      return reply.status(204).send();
    },
  );

  app.post(
    "/api/sso/providers",
    {
      config: {
        doc: {
          summary: "Add an OIDC or SAML identity provider (its secret is sealed and never answered back)",
          access: "user",
          permission: "settings.manage",
          answers: [201],
          errors: [409, 503],
          body: PutSsoProvider,
          response: SsoProviderView,
        },
      },
    },
    async (request, reply) => {
      return reply
        .status(201)
        .send(await sso.settings.addProvider((await resolveIdentity(request)).actor, request.body));
    },
  );

  app.put(
    "/api/sso/providers/:id",
    {
      schema: { params: SsoProviderParams },
      config: {
        doc: {
          summary: "Change an identity provider (a secret left out keeps its stored value)",
          access: "user",
          permission: "settings.manage",
          errors: [404, 409, 503],
          body: PutSsoProvider,
          response: SsoProviderView,
        },
      },
    },
    async (request) => {
      return sso.settings.changeProvider((await resolveIdentity(request)).actor, request.params.id, request.body);
    },
  );

  app.put(
    "/api/sso/providers/:id/enabled",
    {
      schema: { params: SsoProviderParams },
      config: {
        doc: {
          summary: "Turn an identity provider off (it keeps its settings and signs nobody in) or on again",
          access: "user",
          permission: "settings.manage",
          errors: [404, 409],
          body: PutSsoProviderEnabled,
          response: PutSsoProviderEnabled,
        },
      },
    },
    async (request) => {
      return sso.settings.setProviderEnabled((await resolveIdentity(request)).actor, request.params.id, request.body);
    },
  );

  app.delete(
    "/api/sso/providers/:id",
    {
      schema: { params: SsoProviderParams },
      config: {
        doc: {
          summary: "Remove an identity provider; sessions opened through it run to their end",
          access: "user",
          permission: "settings.manage",
          answers: [204],
          errors: [404],
        },
      },
    },
    async (request, reply) => {
      await sso.settings.removeProvider((await resolveIdentity(request)).actor, request.params.id);
      return reply.status(204).send();
    },
  );

  app.post(
    "/api/sso/sign-in",
    {
      config: {
        doc: {
          summary:
            "Sign in with SSO: the identity provider for a work email's verified domain, and where the browser goes next",
          access: "public",
          errors: [404, 409, 429, 503],
          body: SsoSignIn,
          response: SsoSignInStarted,
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
      const { email } = parseOrThrow(SsoSignIn, request.body, "SSO sign-in");
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
