import type { Db } from "../client";

/** Rows revoked once and kept (their revoked_at shows when): share links and API tokens. */
type RevocableTable = "share_links" | "api_tokens";

/** Stamps `at` as the revocation of the org's row `id` unless it was revoked before; true when this call revoked it. */
export async function revokeOnce(db: Db, table: RevocableTable, orgId: string, id: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set({ revoked_at: at })
    .where("org_id", "=", orgId)
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
