import { sql } from "kysely";
import type { Db } from "../client";
import type { Database } from "../schema";

// Every repository method takes the org (docs/architecture.md, "Security in one paragraph"); these start the queries
// of one table so that no read, update or delete can leave the org out. Kysely cannot check a column of a table
// passed in as a type parameter, so the table goes through its dynamic module (as `t`, its documented recipe) and
// the columns are checked here, as keys of the table's row type.

/** Better Auth's tables name a row's organisation `organizationId`; ours name it `org_id`. */
type ByOrganizationId = {
  [T in keyof Database]: Database[T] extends { organizationId: string } ? T : never;
}[keyof Database];

/** Tables whose rows belong to one organisation. */
export type OrgTable =
  | ByOrganizationId
  | { [T in keyof Database]: Database[T] extends { org_id: string } ? T : never }[keyof Database];

/** A column of `T`'s rows, by name. */
type ColumnOf<T extends OrgTable> = keyof Database[T] & string;

// A Record, so that a new Better Auth table with an organisation does not compile until it is listed here.
const byOrganizationId: Record<ByOrganizationId, true> = { member: true, ssoProvider: true };
const orgColumn = (table: OrgTable) => (table in byOrganizationId ? "organizationId" : "org_id");

/** The org's rows of `table`, for the caller to select from. */
export function selectOrgRows<T extends OrgTable>(db: Db, table: T, orgId: string) {
  const { ref } = db.dynamic;
  return db.selectFrom(db.dynamic.table(table).as("t")).where(ref(orgColumn(table)), "=", orgId);
}

/** The org's row of `table` whose `key` column is `value` (the caller narrows by the rest of a composite key). */
export function selectOrgRow<T extends OrgTable>(db: Db, table: T, orgId: string, key: ColumnOf<T>, value: string) {
  return selectOrgRows(db, table, orgId).where(db.dynamic.ref(key), "=", value);
}

/** An update of the org's row of `table` whose `key` column is `value`, for the caller to `set`. */
export function updateOrgRow<T extends OrgTable>(db: Db, table: T, orgId: string, key: ColumnOf<T>, value: string) {
  const { ref } = db.dynamic;
  return db
    .updateTable(db.dynamic.table(table).as("t"))
    .where(ref(orgColumn(table)), "=", orgId)
    .where(ref(key), "=", value);
}

/** Deletes the org's row of `table` whose `key` column is `value`; true when there was one. */
export async function deleteOrgRow<T extends OrgTable>(
  db: Db,
  table: T,
  orgId: string,
  key: ColumnOf<T>,
  value: string,
): Promise<boolean> {
  const { ref } = db.dynamic;
  const result = await db
    .deleteFrom(db.dynamic.table(table).as("t"))
    .where(ref(orgColumn(table)), "=", orgId)
    .where(ref(key), "=", value)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** How many of the org's rows `table` holds, or of those whose `key` column is `value`. */
export async function countOrgRows<T extends OrgTable>(
  db: Db,
  table: T,
  orgId: string,
  key?: ColumnOf<T>,
  value?: string,
): Promise<number> {
  const rows = selectOrgRows(db, table, orgId);
  const row = await (key === undefined ? rows : rows.where(db.dynamic.ref(key), "=", value))
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Which of `values` the org has a row of `table` for, in its `key` column (none asked, no query). */
export async function existingOrgKeys<T extends OrgTable>(
  db: Db,
  table: T,
  orgId: string,
  key: ColumnOf<T>,
  values: readonly string[],
): Promise<string[]> {
  if (values.length === 0) return [];
  const { ref } = db.dynamic;
  const rows = await selectOrgRows(db, table, orgId)
    .select(sql.ref<string>(key).as("key"))
    .where(ref(key), "in", [...values])
    .execute();
  return rows.map((row) => row.key);
}
