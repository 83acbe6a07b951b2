import pg from "pg";

/**
 * The run's status and stored seconds read straight from PostgreSQL: an api saturated by ingest may not answer
 * HTTP in time, and the bench must still say what was stored.
 */
export async function readStoredRun(
  databaseUrl: string,
  runId: string,
): Promise<{ status: string; agentsPerSecond: number[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const run = await client.query<{ status: string }>("select status from runs where id = $1", [runId]);
    const seconds = await client.query<{ agents: number }>(
      "select (point->>'agents')::int as agents from run_seconds where run_id = $1 order by second",
      [runId],
    );
    return { status: run.rows[0]?.status ?? "missing", agentsPerSecond: seconds.rows.map((row) => row.agents) };
  } finally {
    await client.end();
  }
}
