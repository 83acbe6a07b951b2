import type { PlanSpecInput } from "@throng/protocol/plan";

type PingPongInput = Extract<PlanSpecInput["scenario"], { kind: "ping-pong" }>;

/** A redis-server on `host`:`port` over TCP: RESP's replies end in CRLF. */
export const redisTarget = (port: number, host = "127.0.0.1") => ({
  protocol: "tcp" as const,
  host,
  port,
  framing: { kind: "delimiter" as const, delimiter: "\r\n" },
});

/**
 * A ping-pong scenario that speaks Redis: `command` every `intervalMs`, each reply matched to its request in order
 * (RESP carries no ids); `more` adds a session before it or a check of its replies.
 */
export function redisScenario(
  intervalMs: number,
  command: string,
  more: Pick<PingPongInput, "session" | "reply"> = {},
): PingPongInput {
  return { kind: "ping-pong", intervalMs, message: { body: command }, match: { by: "order" }, ...more };
}
