import { RunEventView, RunStatus, RunSummary, type RunView } from "@throng/protocol/run";
import { CapacityEstimate, RunVerdict } from "@throng/protocol/report";
import type { RunEventRow, RunRow } from "@throng/db/repos/runs";

/** A stored run as the API answers it. */
export function toRunView(row: RunRow, events: RunEventRow[] = []): RunView {
  return {
    id: row.id,
    planId: row.planId,
    planName: row.planName,
    planVersion: row.planVersion,
    status: RunStatus.parse(row.status),
    spec: row.spec,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    endedAt: row.endedAt?.toISOString() ?? null,
    startedBy: row.startedBy,
    startedByName: row.startedByName,
    note: row.note,
    tags: row.tags,
    notesEditedBy: row.notesEditedBy,
    notesEditedByName: row.notesEditedByName,
    notesEditedAt: row.notesEditedAt?.toISOString() ?? null,
    summary: row.summary ? RunSummary.parse(row.summary) : null,
    verdict: row.verdict ? RunVerdict.parse(row.verdict) : null,
    capacity: row.capacity ? CapacityEstimate.parse(row.capacity) : null,
    events: events.map((e) =>
      RunEventView.parse({ at: e.at.toISOString(), kind: e.kind, agentId: e.agentId, message: e.message }),
    ),
  };
}
