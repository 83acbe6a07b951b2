import pg from "pg";
import { sql } from "kysely";
import { describe, expect, it, vi } from "vitest";
import { createDb } from "./client";
import { createTestDatabase } from "./testing";

describe("createDb", () => {
  it("survives the server ending an idle connection (a PostgreSQL restart): no uncaught error, and the next query reconnects", async () => {
    const database = await createTestDatabase();
    const db = createDb(database.url, { max: 1 });
    const warned = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query("select pg_terminate_backend($1)", [rows[0]!.pid]);
      await admin.end();
      // The pool's 'error' event fires when the idle connection's end arrives; without a listener it is uncaught.
      await vi.waitFor(() =>
        expect(warned).toHaveBeenCalledWith(expect.stringMatching(/^database: an idle connection ended/)),
      );
      const again = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
      expect(again.rows[0]!.pid).not.toBe(rows[0]!.pid);
    } finally {
      warned.mockRestore();
      await db.destroy();
      await database.drop();
    }
  });
});
