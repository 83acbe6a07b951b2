import type { FastifyRequest } from "fastify";
import { fromNodeHeaders } from "better-auth/node";
import { ThrongError } from "@throng/protocol/errors";
import { Role } from "@throng/protocol/orgs";
import type { OrgRepo } from "@throng/db/repos/orgs";
import type { ApiTokenService } from "@throng/core/orgs/api-tokens";
import type { Actor } from "@throng/core/orgs/permissions";
import type { SsoSignInService } from "@throng/core/sso/sso-sign-in";
import type { Auth } from "../auth";

/** Who is calling: the core Actor, plus the signed-in user and session when it is a browser. */
export interface Identity {
  actor: Actor;
  user: { id: string; email: string; name: string } | null;
  sessionId: string | null;
  /** Who per-caller rate limits count against: `token:<id>` for an API token, `session:<id>` for a browser session. */
  caller: string;
  org: { id: string; name: string; slug: string };
}

/**
 * Resolves a request to an identity: `Authorization: Bearer thr_api_...` for the CLI and CI, else the
 * session cookie. The membership (and so the role) is read again on every request, so a removed member
 * or a changed role takes effect at once; so are the SSO rules (an SSO session's lifetime, "Require SSO").
 * API tokens are not sessions: "Require SSO" leaves them working. One request is resolved once: a route with a body
 * resolves its caller before the body's schema runs (caller-first.ts), and its handler asks again.
 */
export function createIdentityResolver(auth: Auth, orgs: OrgRepo, apiTokens: ApiTokenService, sso: SsoSignInService) {
  const resolved = new WeakMap<FastifyRequest, Promise<Identity>>();
  return function resolveIdentity(request: FastifyRequest): Promise<Identity> {
    let identity = resolved.get(request);
    if (!identity) {
      identity = identityOf(request);
      resolved.set(request, identity);
    }
    return identity;
  };

  async function identityOf(request: FastifyRequest): Promise<Identity> {
    const header = request.headers.authorization;
    if (header?.startsWith("Bearer ")) {
      const { tokenId, ...actor } = await apiTokens.authenticate(header.slice(7).trim());
      const membership = await orgs.membership(actor.userId, actor.orgId);
      return {
        actor,
        user: null,
        sessionId: null,
        caller: `token:${tokenId}`,
        org: { id: actor.orgId, name: membership?.orgName ?? "", slug: membership?.orgSlug ?? "" },
      };
    }
    const session = await auth.api.getSession({ headers: fromNodeHeaders(request.headers) });
    if (!session)
      throw new ThrongError(
        "unauthenticated",
        "Sign in first (or send an API token as Authorization: Bearer thr_api_...)",
      );
    const { user } = session;
    const activeOrgId = (session.session as { activeOrganizationId?: string | null }).activeOrganizationId;
    const membership =
      (activeOrgId && (await orgs.membership(user.id, activeOrgId))) || (await orgs.firstMembership(user.id));
    if (!membership)
      throw new ThrongError(
        "forbidden",
        "You are not a member of any organisation: open an invitation link to join one",
      );
    const role = Role.parse(membership.role);
    const { ssoProviderId, createdAt } = session.session as { ssoProviderId?: string | null; createdAt: Date };
    await sso.checkSession({
      sessionId: session.session.id,
      orgId: membership.orgId,
      role,
      ssoProviderId: ssoProviderId ?? null,
      createdAt: new Date(createdAt),
    });
    return {
      actor: {
        orgId: membership.orgId,
        role,
        userId: user.id,
        label: user.email,
        ...(user.name.trim() ? { name: user.name.trim() } : {}),
        via: "session",
      },
      user: { id: user.id, email: user.email, name: user.name },
      sessionId: session.session.id,
      caller: `session:${session.session.id}`,
      org: { id: membership.orgId, name: membership.orgName, slug: membership.orgSlug },
    };
  }
}
export type ResolveIdentity = ReturnType<typeof createIdentityResolver>;
