import { describe, expect, it } from "vitest";
import { connectionsPerAgentText, derivePlanFigures } from "./plan-derived";

const draft = (clients: number, count?: number) => ({
  name: "p",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 164 },
  load: { clients, durationSec: 30 },
  ...(count ? { agents: { count, labels: {}, onLost: "continue" } } : {}),
});

describe("figures derived from a plan as it is typed", () => {
  it("works out message rate, bandwidth sent and connections per agent", () => {
    expect(derivePlanFigures(draft(10_000) as never, 4)).toEqual({
      messagesPerSec: 10_000,
      sentBitsPerSec: 10_000 * 164 * 8,
      connectionsPerAgent: 2_500,
    });
    expect(derivePlanFigures(draft(10_000, 2) as never, 4).connectionsPerAgent).toBe(5_000);
    expect(derivePlanFigures(draft(10_000) as never, 0).connectionsPerAgent).toBeNull();
  });
});

describe("bandwidth of a scenario with its own message", () => {
  it("counts the bytes of the message it sends, not the built-in ping's 64 B", () => {
    const redis = {
      ...draft(1),
      scenario: { kind: "ping-pong", intervalMs: "100", messageBytes: "64", message: { body: "PING" } },
    };
    // 10 PINGs of 4 B a second: 40 B/s, 320 bit/s.
    expect(derivePlanFigures(redis as never, 1).sentBitsPerSec).toBe(320);
  });
});

describe("connections per agent, in words", () => {
  it("never says no agent is online while one is, even when Clients is not a number", () => {
    expect(connectionsPerAgentText({ connectionsPerAgent: null }, 1)).toBe(
      "Enter the number of clients to see connections per agent over 1 online agent.",
    );
    expect(connectionsPerAgentText({ connectionsPerAgent: null }, 0)).toMatch(/^No agent is online/);
    expect(connectionsPerAgentText({ connectionsPerAgent: null }, null)).not.toMatch(/No agent/);
    expect(connectionsPerAgentText({ connectionsPerAgent: 50 }, 2)).toBe(
      "≈ 50 connections per agent over 2 online agents",
    );
  });
});
