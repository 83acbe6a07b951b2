/** A small valid plan body (POST /api/plans) for API tests; no agent needs to reach its target. */
export const pingPlan = {
  name: "lobby ping",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
  load: { clients: 10, durationSec: 5 },
};
