import type { Db } from "../client";
import { existingOrgKeys, selectOrgRow, selectOrgRows } from "./org-rows";

export interface ScriptSummaryRow {
  sha256: string;
  name: string;
  sizeBytes: number;
  createdAt: Date;
}

export interface ScriptRow extends ScriptSummaryRow {
  source: string;
}

const summaryColumns = ["sha256", "name", "size_bytes as sizeBytes", "created_at as createdAt"] as const;

/** Script bundles of one organisation, keyed by the SHA-256 of their source; every method is scoped by orgId. */
export function createScriptRepo(db: Db) {
  return {
    /** Stores the bundle unless the org already has these bytes; `created` says which happened. */
    async insert(
      orgId: string,
      script: { sha256: string; name: string; source: string; sizeBytes: number; createdBy: string | null },
    ): Promise<{ row: ScriptSummaryRow; created: boolean }> {
      const inserted = await db
        .insertInto("script_bundles")
        .values({
          org_id: orgId,
          sha256: script.sha256,
          name: script.name,
          source: script.source,
          size_bytes: script.sizeBytes,
          created_by: script.createdBy,
        })
        .onConflict((oc) => oc.columns(["org_id", "sha256"]).doNothing())
        .returning(summaryColumns)
        .executeTakeFirst();
      if (inserted) return { row: inserted, created: true };
      const existing = await selectOrgRow(db, "script_bundles", orgId, "sha256", script.sha256)
        .select(summaryColumns)
        .executeTakeFirstOrThrow();
      return { row: existing, created: false };
    },
    async get(orgId: string, sha256: string): Promise<ScriptRow | undefined> {
      return selectOrgRow(db, "script_bundles", orgId, "sha256", sha256)
        .select([...summaryColumns, "source"])
        .executeTakeFirst();
    },
    /** Newest first, without their sources. */
    async list(orgId: string, limit = 500): Promise<ScriptSummaryRow[]> {
      return selectOrgRows(db, "script_bundles", orgId)
        .select(summaryColumns)
        .orderBy("created_at", "desc")
        .orderBy("sha256")
        .limit(limit)
        .execute();
    },
    /** Which of `sha256s` the org has stored. */
    async existing(orgId: string, sha256s: readonly string[]): Promise<string[]> {
      return existingOrgKeys(db, "script_bundles", orgId, "sha256", sha256s);
    },
  };
}
export type ScriptRepo = ReturnType<typeof createScriptRepo>;
