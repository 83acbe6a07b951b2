// `migrate`: applies pending migrations and exits; the compose file runs it once before the api replicas start
// (running it from several places at once is safe too: see migrateToLatest).
import { migrateToLatest } from "./migrate";

// Its one variable, checked here: db has no schema library of its own, and one string needs none.
const databaseUrl = process.env.DATABASE_URL?.trim();
if (!databaseUrl) {
  console.error("Invalid migrate configuration:\n  DATABASE_URL: set DATABASE_URL=postgres://user:pass@host:5432/db");
  process.exit(2);
}
try {
  const applied = await migrateToLatest(databaseUrl);
  console.log(applied.length ? `applied migrations: ${applied.join(", ")}` : "database schema is up to date");
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
