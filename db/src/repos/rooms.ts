import { RoomsReport } from "@throng/protocol/rooms";
import type { Db } from "../client";

/** Each agent's latest movement-sync rooms report per run (agent/PROTOCOL.md §5.3); every method takes the org. */
export function createRoomsRepo(db: Db) {
  return {
    /** Keeps the report when it is the agent's newest for the run (by seq): a re-sent or older snapshot changes nothing. */
    async keep(orgId: string, runId: string, agentId: string, seq: number, report: RoomsReport): Promise<void> {
      await db
        .insertInto("run_rooms")
        .values({ run_id: runId, agent_id: agentId, org_id: orgId, seq, report: JSON.stringify(report) })
        .onConflict((oc) =>
          oc
            .columns(["run_id", "agent_id"])
            .doUpdateSet((eb) => ({ seq: eb.ref("excluded.seq"), report: eb.ref("excluded.report") }))
            .where("run_rooms.seq", "<", (eb) => eb.ref("excluded.seq")),
        )
        .execute();
    },

    /** The run's agents' latest reports, checked as they are read. */
    async listRun(orgId: string, runId: string): Promise<RoomsReport[]> {
      const rows = await db
        .selectFrom("run_rooms")
        .select(["report"])
        .where("org_id", "=", orgId)
        .where("run_id", "=", runId)
        .orderBy("agent_id")
        .execute();
      return rows.map((row) => RoomsReport.parse(row.report));
    },
  };
}
export type RoomsRepo = ReturnType<typeof createRoomsRepo>;
