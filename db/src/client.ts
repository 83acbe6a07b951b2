import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema";

// BIGINT columns (epoch seconds, byte counters) fit in a JS number for any realistic run.
pg.types.setTypeParser(20, (value) => Number(value));

/** The one place a Postgres pool is made. `max` bounds connections per process. */
export function createDb(databaseUrl: string, options: { max?: number } = {}): Kysely<Database> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.max ?? 10 });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export type Db = Kysely<Database>;
