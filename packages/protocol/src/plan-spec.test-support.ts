import { PlanSpec, type PlanSpecInput } from "./plan";

/**
 * A plan as a user writes it, for unit and integration tests (the protocol's and core's): 10 clients for 10 s playing
 * ping-pong with a WebSocket server on loopback; `more` replaces whole top-level fields (target, scenario, load, slos).
 */
export function planInput(more: Partial<PlanSpecInput> = {}): PlanSpecInput {
  return {
    name: "p",
    target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
    scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
    load: { clients: 10, durationSec: 10 },
    ...more,
  };
}

/** What the plan schema refuses in `input`, each as "path: message"; none when it parses. */
export function planIssues(input: unknown): string[] {
  return (PlanSpec.safeParse(input).error?.issues ?? []).map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}
