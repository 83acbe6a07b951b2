import { PlanSpec } from "@throng/protocol/plan";
import { planInput } from "@throng/protocol/plan-spec.test-support";
import type { RunView } from "@throng/protocol/run";

const CREATED_AT = "2026-01-01T00:00:00.000Z";

/**
 * A finished 30-second ping-pong run of 10 clients for the web's unit tests, as GET /api/runs lists it; `patch` sets
 * what the test is about (its status, its times, its id).
 */
export function runView(patch: Partial<RunView> = {}): RunView {
  return {
    id: "00000000-0000-4000-8000-000000000001",
    planId: "00000000-0000-4000-8000-000000000002",
    planName: "Lobby",
    status: "finished",
    spec: PlanSpec.parse(planInput({ name: "Lobby", load: { clients: 10, durationSec: 30 } })),
    error: null,
    createdAt: CREATED_AT,
    startedAt: null,
    endedAt: null,
    summary: null,
    events: [],
    note: "",
    tags: [],
    notesEditedBy: null,
    notesEditedAt: null,
    ...patch,
  };
}
