import { afterAll } from "vitest";
import { createDb } from "./client";
import { createRepos } from "./repos";
import { createTestDatabase } from "./testing";

/**
 * A fresh, migrated database for one test file, with a pool and the repositories over it; dropped after the file's
 * tests. Call it with top-level await. Apart from testing.ts because that one is imported by scripts without vitest.
 */
export async function useTestDatabase(options: { max?: number } = {}) {
  const database = await createTestDatabase();
  const db = createDb(database.url, { max: options.max ?? 3 });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });
  return { db, repos: createRepos(db), url: database.url };
}
