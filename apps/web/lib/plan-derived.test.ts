import { describe, expect, it } from "vitest";
import { derivePlanFigures, formatBits } from "./plan-derived";

const draft = (clients: number, count?: number) => ({
  name: "p",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 164 },
  load: { clients, durationSec: 30 },
  ...(count ? { agents: { count, labels: {}, onLost: "continue" } } : {}),
});

describe("figures derived from a plan as it is typed", () => {
  it("works out message rate, bandwidth sent and connections per agent", () => {
    expect(derivePlanFigures(draft(10_000) as never, 4)).toEqual({ messagesPerSec: 10_000, sentBitsPerSec: 10_000 * 164 * 8, connectionsPerAgent: 2_500 });
    expect(derivePlanFigures(draft(10_000, 2) as never, 4).connectionsPerAgent).toBe(5_000);
    expect(derivePlanFigures(draft(10_000) as never, 0).connectionsPerAgent).toBeNull();
  });

  it("formats bit rates", () => {
    expect(formatBits(13_120_000)).toBe("13.1 Mbit/s");
    expect(formatBits(999)).toBe("999 bit/s");
  });
});
