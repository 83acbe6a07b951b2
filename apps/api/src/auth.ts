import { betterAuth } from "better-auth";
import { organization } from "better-auth/plugins";
import type { Db } from "@throng/db/client";
import type { OrgRepo } from "@throng/db/repos/orgs";

function slugFor(email: string): string {
  const base = email.split("@")[0]!.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "team";
  return `${base}-${crypto.randomUUID().slice(0, 8)}`;
}

/**
 * Better Auth's organization plugin keeps its tables and the session's active organisation, but none of its HTTP
 * routes (/api/auth/organization/*) answer: the dashboard, the CLI and the API use /api/orgs, /api/members and
 * /api/invitations, which check Throng's permission matrix and write the audit log. The plugin's routes did neither,
 * were missing from the OpenAPI document, check-slug told whether another organisation's slug exists, and the API
 * fuzzer made two of them fail with a 500 (list-members sorted by an unknown field, update with nothing to update).
 */
export const DISABLED_AUTH_PATHS: string[] = Object.values(organization().endpoints as Record<string, { path?: string }>)
  .map((endpoint) => endpoint.path)
  .filter((path): path is string => typeof path === "string" && path.startsWith("/organization/"));

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
