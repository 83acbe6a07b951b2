import { sql } from "kysely";
import type { Db } from "../../client";
import { selectOrgRows } from "../org-rows";
import type { RunEventRow } from "../runs";

/** A run's event log: what happened to it and its agents, as the run page lists it. */
export function createRunEventLog(db: Db) {
  return {
    async insertEvent(orgId: string, runId: string, event: { kind: string; agentId: string | null; message: string }) {
      await db
        .insertInto("run_events")
        .values({ run_id: runId, org_id: orgId, kind: event.kind, agent_id: event.agentId, message: event.message })
        .execute();
    },
    /**
     * Replaces the run's events of `kind` with `events` (one transaction): what a judgement found, as it now stands.
     */
    async replaceEvents(
      orgId: string,
      runId: string,
      kind: string,
      events: readonly { agentId: string | null; message: string }[],
    ) {
      await db.transaction().execute(async (tx) => {
        // Two closes of one run may replace its events at once (a job run twice, two workers): without the lock both
        // delete nothing and both insert, and the run shows every event twice.
        await sql`select pg_advisory_xact_lock(hashtextextended(${`run-events:${runId}:${kind}`}, 0))`.execute(tx);
        await tx
          .deleteFrom("run_events")
          .where("org_id", "=", orgId)
          .where("run_id", "=", runId)
          .where("kind", "=", kind)
          .execute();
        if (events.length === 0) return;
        await tx
          .insertInto("run_events")
          .values(events.map((e) => ({ run_id: runId, org_id: orgId, kind, agent_id: e.agentId, message: e.message })))
          .execute();
      });
    },
    async listEvents(orgId: string, runId: string): Promise<RunEventRow[]> {
      return selectOrgRows(db, "run_events", orgId)
        .select(["at", "kind", "agent_id as agentId", "message"])
        .where("run_id", "=", runId)
        .orderBy("at")
        .orderBy("id")
        .execute();
    },
  };
}
