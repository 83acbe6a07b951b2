import { betterAuth } from "better-auth";
import { createAuthMiddleware } from "better-auth/api";
import { organization } from "better-auth/plugins";
import type { Db } from "@throng/db/client";
import type { OrgRepo } from "@throng/db/repos/orgs";

/** A slug of its own: `base` made URL-safe, with a random suffix, so no two organisations ever ask for the same one. */
function uniqueSlug(base: string): string {
  const safe = base.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 40) || "team";
  return `${safe}-${crypto.randomUUID().slice(0, 8)}`;
}

function slugFor(email: string): string {
  return uniqueSlug(email.split("@")[0]!);
}

/**
 * Better Auth's organization plugin paths Throng turns off. check-slug answered whether a slug, any organisation's,
 * is taken: Throng gives every organisation a slug with a random suffix (below), so nobody needs to ask, and a
 * caller learnt which other organisations exist.
 */
export const DISABLED_AUTH_PATHS = ["/organization/check-slug"];

/**
 * The slug a caller gives /organization/create or /organization/update gets a random suffix before Better Auth looks
 * it up: its "slug already taken" answer would otherwise tell whether another organisation has it.
 */
const slugsOfTheirOwn = createAuthMiddleware(async (ctx) => {
  const body = ctx.body as { slug?: unknown; data?: { slug?: unknown } } | undefined;
  if (ctx.path === "/organization/create" && typeof body?.slug === "string") return { context: { body: { ...body, slug: uniqueSlug(body.slug) } } };
  if (ctx.path === "/organization/update" && typeof body?.data?.slug === "string") {
    return { context: { body: { ...body, data: { ...body.data, slug: uniqueSlug(body.data.slug) } } } };
  }
});

/**
 * Better Auth: email + password, sessions in httpOnly cookies, organisations. Signing up creates the
 * user's own organisation, and every new session starts in the user's first organisation.
 */
export function createAuth(deps: { db: Db; orgs: OrgRepo; secret: string; webOrigin: string; production: boolean }) {
  const { db, orgs } = deps;
  return betterAuth({
    database: { db, type: "postgres" },
    secret: deps.secret,
    baseURL: deps.webOrigin,
    basePath: "/api/auth",
    trustedOrigins: [deps.webOrigin],
    emailAndPassword: { enabled: true, minPasswordLength: 8, autoSignIn: true },
    advanced: { useSecureCookies: deps.production && deps.webOrigin.startsWith("https:") },
    telemetry: { enabled: false },
    plugins: [organization()],
    disabledPaths: DISABLED_AUTH_PATHS,
    hooks: { before: slugsOfTheirOwn },
    databaseHooks: {
      user: {
        create: {
          after: async (user) => {
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
          before: async (session) => {
            const membership = await orgs.firstMembership(session.userId);
            return { data: { ...session, activeOrganizationId: membership?.orgId ?? null } };
          },
        },
      },
    },
  });
}
export type Auth = ReturnType<typeof createAuth>;
