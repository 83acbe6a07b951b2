import { sql } from "kysely";
import type { Db } from "../client";
import { countOrgRows, deleteOrgRow, existingOrgKeys, selectOrgRows } from "./org-rows";

/** A secret as listed: its name and who set it when, never its value. */
export interface SecretRow {
  name: string;
  createdBy: string | null;
  createdAt: Date;
  updatedBy: string | null;
  updatedAt: Date;
}

const listColumns = [
  "name",
  "created_by as createdBy",
  "created_at as createdAt",
  "updated_by as updatedBy",
  "updated_at as updatedAt",
] as const;

/** The organisation's secrets (values arrive and leave sealed); every method is scoped by orgId. */
export function createSecretRepo(db: Db) {
  return {
    async list(orgId: string): Promise<SecretRow[]> {
      return selectOrgRows(db, "org_secrets", orgId).select(listColumns).orderBy("name").execute();
    },
    async count(orgId: string): Promise<number> {
      return countOrgRows(db, "org_secrets", orgId);
    },
    /** Which of `names` the organisation has. */
    async existing(orgId: string, names: readonly string[]): Promise<string[]> {
      return existingOrgKeys(db, "org_secrets", orgId, "name", names);
    },
    /** The sealed values of those of `names` the organisation has. */
    async sealedValues(orgId: string, names: readonly string[]): Promise<{ name: string; valueSealed: string }[]> {
      if (names.length === 0) return [];
      return selectOrgRows(db, "org_secrets", orgId)
        .select(["name", "value_sealed as valueSealed"])
        .where("name", "in", [...names])
        .execute();
    },
    /** Creates or replaces a secret; `created` says which. */
    async put(
      orgId: string,
      name: string,
      valueSealed: string,
      by: string,
    ): Promise<{ row: SecretRow; created: boolean }> {
      const now = new Date();
      const row = await db
        .insertInto("org_secrets")
        .values({
          org_id: orgId,
          name,
          value_sealed: valueSealed,
          created_by: by,
          created_at: now,
          updated_by: by,
          updated_at: now,
        })
        .onConflict((oc) =>
          oc.columns(["org_id", "name"]).doUpdateSet({ value_sealed: valueSealed, updated_by: by, updated_at: now }),
        )
        // xmax is 0 on a row this statement inserted, and set on one it updated.
        .returning([...listColumns, sql<boolean>`xmax = 0`.as("inserted")])
        .executeTakeFirstOrThrow();
      const { inserted, ...listed } = row;
      return { row: listed, created: inserted };
    },
    async remove(orgId: string, name: string): Promise<boolean> {
      return deleteOrgRow(db, "org_secrets", orgId, "name", name);
    },
  };
}
export type SecretRepo = ReturnType<typeof createSecretRepo>;
