import { describe, expect, it } from "vitest";
import type { AgentView } from "@throng/protocol/api";
import { ThrongError } from "@throng/protocol/errors";
import { NO_TRIAL_AGENT, pickAgent } from "./session-trials";

const agent = (id: string, over: Partial<AgentView> = {}): AgentView => ({
  id: `00000000-0000-4000-8000-00000000000${id}`,
  hostname: `rig-${id}`,
  os: "linux",
  arch: "x64",
  cores: 2,
  memoryBytes: 1,
  version: "1",
  status: "online",
  labels: {},
  lastSeenAt: null,
  currentRunId: null,
  ip: null,
  ...over,
});

describe("the agent a session trial runs on", () => {
  it("prefers the plan's labels, then an idle agent over a busy one; a busy one may still try", () => {
    const busy = agent("1", { status: "busy", labels: { region: "eu" } });
    const idle = agent("2");
    expect(pickAgent([busy, idle], undefined, undefined)).toBe(idle);
    expect(pickAgent([busy, idle], undefined, { region: "eu" })).toBe(busy);
    expect(pickAgent([busy], undefined, undefined)).toBe(busy);
  });

  it("never a watcher or an offline agent: with none left, no_agent_online saying how to start one", () => {
    const none = () =>
      pickAgent([agent("1", { role: "watch" }), agent("2", { status: "offline" })], undefined, undefined);
    expect(none).toThrow(new ThrongError("no_agent_online", NO_TRIAL_AGENT));
    expect(NO_TRIAL_AGENT).toMatch(/throng-agent connect/);
  });

  it("the agent asked for: unknown is not_found, offline is no_agent_online, a watcher is refused naming agentId", () => {
    const offline = agent("1", { status: "offline" });
    const watcher = agent("2", { role: "watch" });
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return (error as ThrongError).code;
      }
    };
    expect(code(() => pickAgent([offline], "00000000-0000-4000-8000-000000000009", undefined))).toBe("not_found");
    expect(code(() => pickAgent([offline], offline.id, undefined))).toBe("no_agent_online");
    expect(code(() => pickAgent([watcher], watcher.id, undefined))).toBe("validation_failed");
  });
});
