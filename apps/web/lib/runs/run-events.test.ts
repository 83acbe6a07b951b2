import { describe, expect, it } from "vitest";
import { agentFates, offsetSeconds } from "./run-events";

const AGENT = "00000000-0000-4000-8000-0000000000a1";

describe("run events", () => {
  it("places an event relative to the run's start", () => {
    expect(offsetSeconds({ startedAt: "2026-01-01T00:00:00.000Z" }, "2026-01-01T00:01:05.000Z")).toBe(65);
    expect(offsetSeconds({ startedAt: null }, "2026-01-01T00:01:05.000Z")).toBeNull();
  });

  it("keeps the latest fate of each agent, whatever order the events come in", () => {
    const fates = agentFates([
      { at: "2026-01-01T00:00:20.000Z", kind: "agent-returned", agentId: AGENT, message: "back" },
      { at: "2026-01-01T00:00:10.000Z", kind: "agent-lost", agentId: AGENT, message: "lost" },
      { at: "2026-01-01T00:00:30.000Z", kind: "aborted", agentId: null, message: "by x" },
    ]);
    expect([...fates.values()].map((event) => event.kind)).toEqual(["agent-returned"]);
  });
});
