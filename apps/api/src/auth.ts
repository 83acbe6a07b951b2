import { betterAuth, type BetterAuthOptions } from "better-auth";
import { APIError } from "better-auth/api";
import { organization } from "better-auth/plugins";
import { sso } from "@better-auth/sso";
import { kyselyAdapter } from "@better-auth/kysely-adapter";
import { ThrongError } from "@throng/protocol/errors";
import type { Sealer } from "@throng/core/metrics-export/sealed-secrets";
import type { SsoSignInService } from "@throng/core/sso/sso-sign-in";
import { SAML_CLOCK_SKEW_MS } from "@throng/core/sso/saml-failure";
import type { Db } from "@throng/db/client";
import type { OrgRepo } from "@throng/db/repos/orgs";
import { sealedSsoAdapter } from "./sso/sealed-adapter";

/** A password session lasts this long from its last use (Better Auth renews it at most once a day). */
export const PASSWORD_SESSION_DAYS = 7;

/**
 * The SSO plugin's paths Throng turns off over HTTP: providers and domains are managed through /api/sso (org-scoped,
 * sealed, audit-logged), and sign-in starts at POST /api/sso/sign-in, which finds only verified domains' providers.
 */
export const SSO_DISABLED_PATHS = [
  "/sso/register",
  "/sso/providers",
  "/sso/get-provider",
  "/sso/update-provider",
  "/sso/delete-provider",
  "/sso/request-domain-verification",
  "/sso/verify-domain",
  "/sso/callback",
  "/sign-in/sso",
];

function slugFor(email: string): string {
  const base =
    email
      .split("@")[0]!
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "team";
  return `${base}-${crypto.randomUUID().slice(0, 8)}`;
}

interface EndpointContextLike {
  path?: string;
  params?: Record<string, string | undefined>;
}

/** The SSO provider a request signs in through (the OIDC callback or the SAML ACS), else null. */
function ssoProviderOf(ctx: EndpointContextLike | null | undefined): string | null {
  const path = ctx?.path ?? "";
  return path.startsWith("/sso/callback/") || path.startsWith("/sso/saml2/sp/acs/")
    ? (ctx?.params?.providerId ?? null)
    : null;
}

/** Throng's refusals inside Better Auth's flow become its own errors, with the same words. */
function asApiError(error: unknown): never {
  if (error instanceof ThrongError)
    throw new APIError(error.code === "forbidden" ? "FORBIDDEN" : "BAD_REQUEST", {
      message: error.message,
      code: error.code.toUpperCase(),
    });
  throw error;
}

/**
/**
 * Better Auth's organization plugin keeps its tables and the session's active organisation, but none of its HTTP
 * routes (/api/auth/organization/*) answer: the dashboard, the CLI and the API use /api/orgs, /api/members and
 * /api/invitations, which check Throng's permission matrix and write the audit log. The plugin's routes did neither,
 * were missing from the OpenAPI document, check-slug told whether another organisation's slug exists, and the API
 * fuzzer made two of them fail with a 500 (list-members sorted by an unknown field, update with nothing to update).
 */
export const DISABLED_AUTH_PATHS: string[] = Object.values(
  organization().endpoints as Record<string, { path?: string }>,
)
  .map((endpoint) => endpoint.path)
  .filter((path): path is string => typeof path === "string" && path.startsWith("/organization/"));

/**
 * Better Auth: email + password, sessions in httpOnly cookies, organisations, and single sign-on (OIDC and SAML,
 * Better Auth's SSO plugin). Signing up with a password creates the user's own organisation; signing in through an
 * organisation's identity provider joins that organisation instead (core/sso/sso-sign-in.ts decides who may).
 */
export function createAuth(deps: {
  db: Db;
  orgs: OrgRepo;
  ssoSignIn: SsoSignInService;
  sealer: Sealer;
  secret: string;
  webOrigin: string;
  production: boolean;
  /** Identity providers on a private network, trusted for fetches and redirects (SSO_PRIVATE_IDP_ORIGINS). */
  privateIdpOrigins?: readonly string[];
}) {
  const { db, orgs, ssoSignIn } = deps;
  return betterAuth({
    database: (options: BetterAuthOptions) =>
      sealedSsoAdapter(kyselyAdapter(db, { type: "postgres", transaction: true })(options), deps.sealer),
    secret: deps.secret,
    baseURL: deps.webOrigin,
    basePath: "/api/auth",
    trustedOrigins: [deps.webOrigin, ...(deps.privateIdpOrigins ?? [])],
    emailAndPassword: { enabled: true, minPasswordLength: 8, autoSignIn: true },
    session: {
      expiresIn: PASSWORD_SESSION_DAYS * 86_400,
      updateAge: 86_400,
      additionalFields: { ssoProviderId: { type: "string", required: false, input: false } },
    },
    advanced: { useSecureCookies: deps.production && deps.webOrigin.startsWith("https:") },
    telemetry: { enabled: false },
    // A failed sign-in that Better Auth redirects (a replayed or expired state) lands on the sign-in page, which says what went wrong.
    onAPIError: { errorURL: `${deps.webOrigin.replace(/\/$/, "")}/sign-in` },
    disabledPaths: [...DISABLED_AUTH_PATHS, ...SSO_DISABLED_PATHS],
    plugins: [
      organization(),
      sso({
        domainVerification: { enabled: true },
        // Throng joins people itself (roles mapped from a claim, audit-logged): the plugin's own joining is off.
        organizationProvisioning: { disabled: true },
        providersLimit: 0,
        resolveUser: async (input) =>
          ssoSignIn.admit({ providerId: input.providerId, email: input.providerUser.email }),
        provisionUserOnEveryLogin: true,
        provisionUser: async ({ user, userInfo, provider }) => {
          await ssoSignIn.signedIn({
            providerId: provider.providerId,
            userId: user.id,
            email: user.email,
            profile: userInfo,
          });
        },
        // The same allowance for the IdP's clock in samlify's checks and the plugin's (samlify alone allows none).
        saml: { requireTimestamps: true, clockSkew: SAML_CLOCK_SKEW_MS },
      }),
    ],
    databaseHooks: {
      user: {
        create: {
          after: async (user, ctx) => {
            if (ssoProviderOf(ctx)) return; // joined the provider's organisation instead
            await orgs.createOwnedOrganization(user.id, {
              id: crypto.randomUUID(),
              name: `${user.name || user.email}'s team`,
              slug: slugFor(user.email),
            });
          },
        },
      },
      session: {
        create: {
          before: async (session, ctx) => {
            const providerId = ssoProviderOf(ctx);
            if (providerId) {
              // The provider's organisation, which the person joins (if new to it) right after this.
              const orgId = await ssoSignIn.providerOrg(providerId);
              return { data: { ...session, ssoProviderId: providerId, activeOrganizationId: orgId ?? null } };
            }
            if (ctx?.path === "/sign-in/email") {
              const user = await db
                .selectFrom("user")
                .select("email")
                .where("id", "=", session.userId)
                .executeTakeFirst();
              await ssoSignIn
                .checkPasswordSignIn({ userId: session.userId, email: user?.email ?? session.userId })
                .catch(asApiError);
            }
            const membership = await orgs.firstMembership(session.userId);
            return { data: { ...session, ssoProviderId: null, activeOrganizationId: membership?.orgId ?? null } };
          },
        },
      },
    },
  });
}
export type Auth = ReturnType<typeof createAuth>;
