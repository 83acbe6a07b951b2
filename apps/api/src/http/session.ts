import type { FastifyRequest } from "fastify";
import { fromNodeHeaders } from "better-auth/node";
import { ThrongError } from "@throng/protocol/errors";
import type { OrgRepo } from "@throng/db/repos/orgs";
import type { Auth } from "../auth";

/** Who is asking, and for which organisation: every org-scoped call starts from this. */
export interface Actor {
  userId: string;
  email: string;
  name: string;
  orgId: string;
  orgName: string;
  orgSlug: string;
  role: string;
}

/** Resolves the session cookie to an actor; the membership is re-checked on every request. */
export function createActorResolver(auth: Auth, orgs: OrgRepo) {
  return async function resolveActor(request: FastifyRequest): Promise<Actor> {
    const session = await auth.api.getSession({ headers: fromNodeHeaders(request.headers) });
    if (!session) throw new ThrongError("unauthenticated", "Sign in first");
    const { user } = session;
    const activeOrgId = (session.session as { activeOrganizationId?: string | null }).activeOrganizationId;
    const membership = activeOrgId ? await orgs.membership(user.id, activeOrgId) : await orgs.firstMembership(user.id);
    if (!membership) throw new ThrongError("forbidden", "You are not a member of any organisation");
    return {
      userId: user.id, email: user.email, name: user.name,
      orgId: membership.orgId, orgName: membership.orgName, orgSlug: membership.orgSlug, role: membership.role,
    };
  };
}
export type ResolveActor = ReturnType<typeof createActorResolver>;
