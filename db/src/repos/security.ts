import type { Db } from "../client";
import { selectOrgRows, updateOrgRow } from "./org-rows";
import { revokeOnce } from "./revoke-once";

export interface ApiTokenRow {
  id: string;
  orgId: string;
  name: string;
  scope: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

export interface AuditRow {
  at: Date;
  actor: string;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
}

const tokenColumns = [
  "id",
  "org_id as orgId",
  "name",
  "scope",
  "created_by as createdBy",
  "created_at as createdAt",
  "expires_at as expiresAt",
  "revoked_at as revokedAt",
  "last_used_at as lastUsedAt",
] as const;

/** API tokens and the audit log, scoped by orgId (a token lookup by its secret's hash names the org). */
export function createSecurityRepo(db: Db) {
  return {
    async insertApiToken(
      orgId: string,
      t: { id: string; name: string; tokenHash: string; scope: string; createdBy: string; expiresAt: Date },
    ) {
      await db
        .insertInto("api_tokens")
        .values({
          id: t.id,
          org_id: orgId,
          name: t.name,
          token_hash: t.tokenHash,
          scope: t.scope,
          created_by: t.createdBy,
          expires_at: t.expiresAt,
        })
        .execute();
      return (await db
        .selectFrom("api_tokens")
        .select(tokenColumns)
        .where("id", "=", t.id)
        .executeTakeFirstOrThrow()) as ApiTokenRow;
    },
    async findApiTokenByHash(tokenHash: string): Promise<ApiTokenRow | undefined> {
      return db.selectFrom("api_tokens").select(tokenColumns).where("token_hash", "=", tokenHash).executeTakeFirst();
    },
    async listApiTokens(orgId: string): Promise<ApiTokenRow[]> {
      return selectOrgRows(db, "api_tokens", orgId).select(tokenColumns).orderBy("created_at", "desc").execute();
    },
    async revokeApiToken(orgId: string, id: string, at: Date): Promise<boolean> {
      return revokeOnce(db, "api_tokens", orgId, id, at);
    },
    async touchApiToken(orgId: string, id: string, at: Date) {
      await updateOrgRow(db, "api_tokens", orgId, "id", id).set({ last_used_at: at }).execute();
    },
    async insertAudit(
      orgId: string,
      entry: { actor: string; action: string; target: string | null; details: Record<string, unknown> },
    ) {
      await db
        .insertInto("audit_log")
        .values({
          org_id: orgId,
          actor: entry.actor,
          action: entry.action,
          target: entry.target,
          details: JSON.stringify(entry.details),
        })
        .execute();
    },
    async listAudit(orgId: string, limit = 200): Promise<AuditRow[]> {
      return selectOrgRows(db, "audit_log", orgId)
        .select(["at", "actor", "action", "target", "details"])
        .orderBy("at", "desc")
        .orderBy("id", "desc")
        .limit(limit)
        .execute();
    },
  };
}
export type SecurityRepo = ReturnType<typeof createSecurityRepo>;
