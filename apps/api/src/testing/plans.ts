import { PlanView } from "@throng/protocol/api";
import { RunView } from "@throng/protocol/run";
import type { TestUser } from "./test-api";

/** A small valid plan body (POST /api/plans) for API tests; no agent needs to reach its target. */
export const pingPlan = {
  name: "lobby ping",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
  load: { clients: 10, durationSec: 5 },
};

/** A plan saved through POST /api/plans: a 100 ms ping-pong to a loopback websocket, with `overrides` on top. */
export async function createPlan(user: Pick<TestUser, "request">, overrides: Record<string, unknown> = {}) {
  return PlanView.parse(
    (
      await user.request("POST", "/api/plans", {
        name: "p",
        target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
        scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
        load: { clients: 4, durationSec: 30 },
        ...overrides,
      })
    ).json,
  );
}

/** A run of a plan saved as `createPlan` saves it (POST /api/plans/:id/runs): queued, for the worker or the test to start. */
export async function queuedRun(user: Pick<TestUser, "request">, overrides: Record<string, unknown> = {}) {
  const plan = await createPlan(user, overrides);
  return RunView.parse((await user.request("POST", `/api/plans/${plan.id}/runs`)).json);
}
