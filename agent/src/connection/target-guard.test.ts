import { describe, expect, it } from "vitest";
import type { RunAssignment } from "@throng/protocol/agent";
import { refusedTarget } from "./target-guard";

const assignment = (url: string) =>
  ({
    runId: "00000000-0000-4000-8000-000000000001",
    shardIndex: 0,
    shardCount: 1,
    clients: 1,
    startAt: 0,
    plan: {
      name: "p",
      target: { protocol: "websocket", url },
      scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
      load: { clients: 1, durationSec: 1, rampUpSec: 0 },
    },
  }) as RunAssignment;

describe("the agent's own target allow-list", () => {
  it("allows everything without a list", () => {
    expect(refusedTarget(assignment("ws://10.1.2.3:80/"), [])).toBeNull();
  });

  it("refuses a target off the list, naming it, whatever the server says", () => {
    expect(refusedTarget(assignment("ws://127.0.0.1:7070/ws"), ["127.0.0.1:7070"])).toBeNull();
    expect(refusedTarget(assignment("ws://game.example.com/ws"), ["*.example.com"])).toBeNull();
    expect(refusedTarget(assignment("ws://127.0.0.1:9999/ws"), ["127.0.0.1:7070"])).toBe(
      "target 127.0.0.1:9999 is not on this agent's --allow-target list (127.0.0.1:7070); no load was generated",
    );
  });

  it("reads a KCP target's host and port as it reads TCP's and UDP's", () => {
    const kcp = (port: number) => {
      const a = assignment("ws://127.0.0.1:7070/ws");
      return { ...a, plan: { ...a.plan, target: { protocol: "kcp", host: "127.0.0.1", port } } } as RunAssignment;
    };
    expect(refusedTarget(kcp(7400), ["127.0.0.1:7400"])).toBeNull();
    expect(refusedTarget(kcp(7401), ["127.0.0.1:7400"])).toBe(
      "target 127.0.0.1:7401 is not on this agent's --allow-target list (127.0.0.1:7400); no load was generated",
    );
  });

  it("holds a session's http steps to the same list, naming the step", () => {
    const withHttp = (url: string) => {
      const a = assignment("ws://127.0.0.1:7070/ws");
      return {
        ...a,
        plan: { ...a.plan, scenario: { kind: "login-storm", session: [{ kind: "http", url }] } },
      } as RunAssignment;
    };
    expect(refusedTarget(withHttp("http://127.0.0.1:8080/match?c={{client}}"), ["127.0.0.1"])).toBeNull();
    expect(refusedTarget(withHttp("https://auth.example.org/token"), ["127.0.0.1"])).toBe(
      "scenario.session[0]: http step to auth.example.org:443 is not on this agent's --allow-target list (127.0.0.1); no load was generated",
    );
  });
});
