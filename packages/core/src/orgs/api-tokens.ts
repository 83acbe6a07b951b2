import { ThrongError } from "@throng/protocol/errors";
import { type CreateApiToken, Role, TokenScope, type ApiTokenCreated, type ApiTokenView } from "@throng/protocol/orgs";
import type { OrgRepo } from "@throng/db/repos/orgs";
import type { ApiTokenRow, SecurityRepo } from "@throng/db/repos/security";
import type { Clock } from "../ports";
import { findLiveSecret, generateSecret, hashSecret } from "../fleet/secrets";
import type { AuditLog } from "./audit";
import { authorize, lowerRole, ROLE_RANK, type Actor } from "./permissions";

export const API_TOKEN_PREFIX = "thr_api_";
const SCOPE_ROLE: Record<TokenScope, Role> = { read: "viewer", run: "member", admin: "admin" };

function toView(row: ApiTokenRow): ApiTokenView {
  return {
    id: row.id,
    name: row.name,
    scope: TokenScope.parse(row.scope),
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** API tokens for the CLI and CI: scoped, expiring, shown once, stored hashed, revocable. */
export function createApiTokenService(deps: { security: SecurityRepo; orgs: OrgRepo; audit: AuditLog; clock: Clock }) {
  const { security, orgs, audit, clock } = deps;
  return {
    async create(actor: Actor, body: CreateApiToken): Promise<ApiTokenCreated> {
      authorize(actor, "token.manage");
      if (ROLE_RANK[SCOPE_ROLE[body.scope]] > ROLE_RANK[actor.role]) {
        throw new ThrongError("forbidden", `Your role (${actor.role}) cannot create a token with scope ${body.scope}`);
      }
      const token = generateSecret(API_TOKEN_PREFIX);
      const row = await security.insertApiToken(actor.orgId, {
        id: crypto.randomUUID(),
        name: body.name,
        tokenHash: hashSecret(token),
        scope: body.scope,
        createdBy: actor.userId,
        expiresAt: new Date(clock.now() + body.expiresInDays * 86_400_000),
      });
      await audit.record(actor.orgId, actor.label, "api-token.created", row.id, { name: body.name, scope: body.scope });
      return { ...toView(row), token };
    },

    async list(actor: Actor): Promise<ApiTokenView[]> {
      authorize(actor, "token.manage");
      return (await security.listApiTokens(actor.orgId)).map(toView);
    },

    async revoke(actor: Actor, id: string): Promise<void> {
      authorize(actor, "token.manage");
      if (!(await security.revokeApiToken(actor.orgId, id, new Date(clock.now())))) {
        throw new ThrongError("not_found", `No active API token ${id} in this organisation`);
      }
      await audit.record(actor.orgId, actor.label, "api-token.revoked", id);
    },

    /**
     * A Bearer token → the actor it stands for: the creator's current role, capped by the token's scope; with the
     * token's id, which per-token rate limits key on.
     */
    async authenticate(token: string): Promise<Actor & { tokenId: string }> {
      const refused = new ThrongError(
        "unauthenticated",
        "Unknown, expired or revoked API token: create a new one under Settings → API tokens",
      );
      const row = await findLiveSecret(token, API_TOKEN_PREFIX, security.findApiTokenByHash, clock.now());
      if (!row) throw refused;
      const membership = await orgs.membership(row.createdBy, row.orgId);
      if (!membership) throw refused; // its creator left the organisation
      await security.touchApiToken(row.orgId, row.id, new Date(clock.now()));
      const role = lowerRole(Role.parse(membership.role), SCOPE_ROLE[TokenScope.parse(row.scope)]);
      return {
        orgId: row.orgId,
        role,
        userId: row.createdBy,
        label: `token ${row.name}`,
        via: "api-token",
        tokenId: row.id,
      };
    },
  };
}
export type ApiTokenService = ReturnType<typeof createApiTokenService>;
