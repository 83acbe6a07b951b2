import pg from "pg";
import { migrateToLatest } from "./migrate";

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url)
    throw new Error("TEST_DATABASE_URL is not set: run tests with `npm test` (or through vitest's global setup)");
  return url;
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database per test file, so files never see each other's rows. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `throng_test_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
  await withAdmin((client) => client.query(`create database ${name}`));
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  await migrateToLatest(url.toString());
  return {
    url: url.toString(),
    async drop() {
      await withAdmin(async (client) => {
        await client.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
          [name],
        );
        await client.query(`drop database if exists ${name}`);
      });
    },
  };
}

/** A BullMQ prefix no other test file uses. */
export function uniquePrefix(): string {
  return `throng-test-${crypto.randomUUID().slice(0, 8)}`;
}
