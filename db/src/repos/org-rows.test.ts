import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from "kysely";
import { describe, expect, it } from "vitest";
import type { Database } from "../schema";
import { countOrgRows, deleteOrgRow, existingOrgKeys, selectOrgRow, selectOrgRows, updateOrgRow } from "./org-rows";

// Compiled, not run (a driver that answers nothing, its statements logged): what each helper puts in the WHERE
// clause, for our tables and Better Auth's (apps/api/src/isolation.int.test.ts runs them against PostgreSQL).
const executed: { sql: string; parameters: readonly unknown[] }[] = [];
const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
  log: (event) => {
    executed.push({ sql: event.query.sql, parameters: event.query.parameters });
  },
});

describe("queries of one organisation's table", () => {
  it("filter by org_id on our tables and by organizationId on Better Auth's", () => {
    expect(selectOrgRows(db, "org_secrets", "o1").select("name").compile()).toMatchObject({
      sql: 'select "name" from "org_secrets" as "t" where "org_id" = $1',
      parameters: ["o1"],
    });
    expect(selectOrgRow(db, "ssoProvider", "o1", "providerId", "p1").select("name").compile()).toMatchObject({
      sql: 'select "name" from "ssoProvider" as "t" where "organizationId" = $1 and "providerId" = $2',
      parameters: ["o1", "p1"],
    });
  });

  it("update only the org's row of that key", () => {
    expect(updateOrgRow(db, "member", "o1", "id", "m1").set({ role: "admin" }).compile()).toMatchObject({
      sql: 'update "member" as "t" set "role" = $1 where "organizationId" = $2 and "id" = $3',
      parameters: ["admin", "o1", "m1"],
    });
  });

  it("delete only the org's row of that key", async () => {
    await deleteOrgRow(db, "notification_channels", "o1", "id", "c1");
    expect(executed).toEqual([
      { sql: 'delete from "notification_channels" as "t" where "org_id" = $1 and "id" = $2', parameters: ["o1", "c1"] },
    ]);
  });

  it("count the org's rows, or those of one key", async () => {
    executed.length = 0;
    // The dummy driver answers no row, so the count throws; what it asked is what this checks.
    await expect(countOrgRows(db, "org_secrets", "o1")).rejects.toThrow();
    await expect(countOrgRows(db, "runs", "o1", "plan_id", "p1")).rejects.toThrow();
    expect(executed).toEqual([
      { sql: 'select count(*) as "n" from "org_secrets" as "t" where "org_id" = $1', parameters: ["o1"] },
      {
        sql: 'select count(*) as "n" from "runs" as "t" where "org_id" = $1 and "plan_id" = $2',
        parameters: ["o1", "p1"],
      },
    ]);
  });

  it("ask which of some keys the org has, and ask nothing for none", async () => {
    executed.length = 0;
    expect(await existingOrgKeys(db, "script_bundles", "o1", "sha256", [])).toEqual([]);
    expect(await existingOrgKeys(db, "org_secrets", "o1", "name", ["A", "B"])).toEqual([]);
    expect(executed).toEqual([
      {
        sql: 'select "name" as "key" from "org_secrets" as "t" where "org_id" = $1 and "name" in ($2, $3)',
        parameters: ["o1", "A", "B"],
      },
    ]);
  });
});
