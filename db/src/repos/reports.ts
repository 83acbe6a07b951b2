import type { Db } from "../client";
import { selectOrgRows } from "./org-rows";
import { revokeOnce } from "./revoke-once";

export interface ShareLinkRow {
  id: string;
  orgId: string;
  runId: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface EstimateRow {
  id: string;
  targetName: string;
  build: string;
  runId: string;
  clients: number | null;
  valid: boolean;
  sentence: string;
  createdAt: Date;
}

const linkColumns = [
  "id",
  "org_id as orgId",
  "run_id as runId",
  "created_at as createdAt",
  "expires_at as expiresAt",
  "revoked_at as revokedAt",
] as const;
const estimateColumns = [
  "id",
  "target_name as targetName",
  "build",
  "run_id as runId",
  "clients",
  "valid",
  "sentence",
  "created_at as createdAt",
] as const;

/** Share links and saved capacity estimates, scoped by orgId (a share link's secret names its org). */
export function createReportRepo(db: Db) {
  return {
    async insertShareLink(
      orgId: string,
      link: { id: string; runId: string; tokenHash: string; createdBy: string; expiresAt: Date | null },
    ) {
      await db
        .insertInto("share_links")
        .values({
          id: link.id,
          org_id: orgId,
          run_id: link.runId,
          token_hash: link.tokenHash,
          created_by: link.createdBy,
          expires_at: link.expiresAt,
        })
        .execute();
      return db.selectFrom("share_links").select(linkColumns).where("id", "=", link.id).executeTakeFirstOrThrow();
    },
    async findShareLinkByHash(tokenHash: string): Promise<ShareLinkRow | undefined> {
      return db.selectFrom("share_links").select(linkColumns).where("token_hash", "=", tokenHash).executeTakeFirst();
    },
    async listShareLinks(orgId: string, runId: string): Promise<ShareLinkRow[]> {
      return selectOrgRows(db, "share_links", orgId)
        .select(linkColumns)
        .where("run_id", "=", runId)
        .orderBy("created_at", "desc")
        .execute();
    },
    async revokeShareLink(orgId: string, id: string, at: Date): Promise<boolean> {
      return revokeOnce(db, "share_links", orgId, id, at);
    },
    async insertEstimate(orgId: string, e: Omit<EstimateRow, "createdAt">) {
      await db
        .insertInto("capacity_estimates")
        .values({
          id: e.id,
          org_id: orgId,
          target_name: e.targetName,
          build: e.build,
          run_id: e.runId,
          clients: e.clients,
          valid: e.valid,
          sentence: e.sentence,
        })
        .execute();
    },
    /** Oldest first, so each estimate can be compared with the one before it. */
    async listEstimates(orgId: string, targetName?: string): Promise<EstimateRow[]> {
      let query = selectOrgRows(db, "capacity_estimates", orgId).select(estimateColumns);
      if (targetName !== undefined) query = query.where("target_name", "=", targetName);
      return query.orderBy("created_at").orderBy("id").execute();
    },
  };
}
export type ReportRepo = ReturnType<typeof createReportRepo>;
