import pg from "pg";
import { describe, expect, it } from "vitest";
import { createTestDatabase, uniquePrefix } from "./testing";

async function databaseExists(url: string): Promise<boolean> {
  const name = new URL(url).pathname.slice(1);
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query("select 1 from pg_database where datname = $1", [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

describe("createTestDatabase", () => {
  it("gives each caller its own migrated database, and drop removes it even while a connection is open", async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    expect(a.url).not.toBe(b.url);
    const open = new pg.Client({ connectionString: a.url });
    open.on("error", () => undefined); // drop() terminates this connection on purpose.
    await open.connect();
    const applied = await open.query("select name from kysely_migration");
    expect(applied.rowCount).toBeGreaterThan(0);

    await Promise.all([a.drop(), b.drop()]);
    expect(await databaseExists(a.url)).toBe(false);
    expect(await databaseExists(b.url)).toBe(false);
    await open.end().catch(() => undefined);
  });
});

describe("uniquePrefix", () => {
  it("never repeats, so test files never share BullMQ queues", () => {
    const prefixes = new Set(Array.from({ length: 1000 }, () => uniquePrefix()));
    expect(prefixes.size).toBe(1000);
  });
});
