import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from "kysely";
import { createDb } from "./client";

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../migrations");

/** Each `db/migrations/NNN-name.sql` file is one migration, applied in name order inside a transaction. */
class SqlFileMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await fs.readdir(migrationsDir)).filter((f) => f.endsWith(".sql")).sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      const text = await fs.readFile(path.join(migrationsDir, file), "utf8");
      migrations[file.replace(/\.sql$/, "")] = {
        up: async (db: Kysely<unknown>) => {
          await sql.raw(text).execute(db);
        },
      };
    }
    return migrations;
  }
}

/**
 * Applies every pending migration; safe to call on every start, and from several processes at once (api replicas,
 * the compose file's migrate service): Kysely's Migrator takes a PostgreSQL advisory lock around the pending ones
 * and tolerates its bookkeeping tables being created concurrently (migrate.int.test.ts holds it to that).
 * Throws with the failing migration's name.
 */
export async function migrateToLatest(databaseUrl: string): Promise<string[]> {
  const db = createDb(databaseUrl, { max: 1 });
  try {
    const migrator = new Migrator({ db, provider: new SqlFileMigrationProvider() });
    const { error, results } = await migrator.migrateToLatest();
    const failed = results?.find((r) => r.status === "Error");
    if (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(
        failed ? `Migration ${failed.migrationName} failed: ${message}` : `Could not migrate the database: ${message}`,
      );
    }
    return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
  } finally {
    await db.destroy();
  }
}
