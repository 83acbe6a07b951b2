import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from "kysely";
import { describe, expect, it } from "vitest";
import type { Database } from "../schema";
import { deleteOrgRow, selectOrgRow, selectOrgRows, updateOrgRow } from "./org-rows";

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
});
