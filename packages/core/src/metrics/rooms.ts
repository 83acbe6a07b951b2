import { runRoomsOf, type RoomsReport, type RunRooms } from "@throng/protocol/rooms";
import type { Repos } from "@throng/db/repos";

/**
 * Ingest: a movement-sync snapshot's rooms report (agent/PROTOCOL.md §5.3) replaces its agent's older one. Reports are
 * cumulative, so each agent's newest stands for its rooms, and an agent lost mid-run keeps the last one it sent.
 */
export async function keepRooms(
  repos: Pick<Repos, "rooms">,
  orgId: string,
  runId: string,
  agentId: string,
  seq: number,
  report: RoomsReport | undefined,
): Promise<void> {
  if (report) await repos.rooms.keep(orgId, runId, agentId, seq, report);
}

/** The run's worst rooms across its agents and the spread over all; undefined for a run no room was measured in. */
export async function roomsOf(
  repos: Pick<Repos, "rooms">,
  orgId: string,
  runId: string,
): Promise<RunRooms | undefined> {
  const reports = await repos.rooms.listRun(orgId, runId);
  return reports.length ? runRoomsOf(reports) : undefined;
}
