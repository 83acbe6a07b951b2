import { readdirSync } from "node:fs";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "./migrate";

const migrationFiles = readdirSync(new URL("../migrations", import.meta.url)).filter((f) => f.endsWith(".sql"));

async function admin<T>(fn: (client: pg.Client) => Promise<T>, url = process.env.TEST_DATABASE_URL): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// Not createTestDatabase: that one is already migrated, and the race is on a database with no tables at all.
const name = `throng_test_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
const url = new URL(process.env.TEST_DATABASE_URL ?? "postgres://unset");
url.pathname = `/${name}`;

afterAll(() => admin((client) => client.query(`drop database if exists ${name} with (force)`)));

describe("migrateToLatest", () => {
  it("lets several processes start at once on a fresh database: all succeed and each migration is applied once", async () => {
    await admin((client) => client.query(`create database ${name}`));
    // Like api replicas (or several `migrate` runs) starting together: separate connections, the same moment.
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => migrateToLatest(url.toString())));
    expect(results.map((r) => (r.status === "rejected" ? String(r.reason) : "ok"))).toEqual(["ok", "ok", "ok", "ok"]);
    const applied = results.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
    expect(applied.sort()).toEqual(migrationFiles.map((f) => f.replace(/\.sql$/, "")).sort());
    const rows = await admin((client) => client.query("select name from kysely_migration"), url.toString());
    expect(rows.rowCount).toBe(migrationFiles.length);
  });
});
