import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema";

// BIGINT columns (epoch seconds, byte counters) fit in a JS number for any realistic run.
pg.types.setTypeParser(20, (value) => Number(value));

/** The one place a Postgres pool is made. `max` bounds connections per process. */
export function createDb(databaseUrl: string, options: { max?: number } = {}): Kysely<Database> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.max ?? 10 });
  // An idle connection the server ends (PostgreSQL restarting, an administrator's terminate) is an 'error' on the
  // pool; without a listener it is an uncaught exception that takes the whole process down. The pool drops that
  // connection and opens a new one on the next query, whose own error (if the server is still down) reaches its caller.
  pool.on("error", (error) =>
    console.error(`database: an idle connection ended (${error.message}); the next query reconnects`),
  );
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export type Db = Kysely<Database>;
