import { describe, expect, it } from "vitest";
import type { PlanSpec } from "@throng/protocol/plan";
import {
  describeAgents,
  describeLoad,
  describeScenario,
  describeTarget,
  scenarioScriptHash,
  sentMessageBytes,
} from "./plan-summary";

const spec: PlanSpec = {
  name: "Lobby",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
  load: { clients: 10, durationSec: 90, rampUpSec: 10 },
};

describe("plan summary lines", () => {
  it("describes load, target and scenario", () => {
    expect(describeLoad(spec)).toBe("10 clients · 1 m 30 s (ramp-up 10 s)");
    expect(describeTarget(spec)).toBe("ws://127.0.0.1:7070/ws");
    expect(describeScenario(spec)).toBe("ping every 200 ms, 64 B · ≈ 50 msg/s");
  });

  it("sizes a scenario's own message, not the built-in ping's size left beside it", () => {
    const redis: PlanSpec = {
      ...spec,
      scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64, message: { body: "PING" } },
    };
    expect(describeScenario(redis)).toBe("ping every 100 ms, custom message of 4 B · ≈ 100 msg/s");
    expect(sentMessageBytes({ kind: "ping-pong", message: { body: "{{seq}}" } })).toBeNull();
    expect(sentMessageBytes({ kind: "ping-pong", message: { body: "{{seq}}", sizeBytes: "32" } })).toBe(32);
    expect(sentMessageBytes({ kind: "ping-pong", message: { format: "hex", body: "2a310d0a" } })).toBe(4);
    expect(sentMessageBytes({ kind: "ping-pong", message: { format: "json", body: '{"t":"é"}' } })).toBe(10);
    expect(sentMessageBytes({ kind: "ping-pong", message: { format: "msgpack", body: "{}" } })).toBeNull();
    expect(sentMessageBytes({ kind: "ping-pong" })).toBe(64);
    expect(
      describeScenario({ ...spec, scenario: { kind: "ping-pong", intervalMs: 100, message: { body: "{{seq}}" } } }),
    ).toBe("ping every 100 ms, custom message · ≈ 100 msg/s");
  });

  it("names a script plan's script by its short hash", () => {
    const sha256 = "E8B924C262EF".padEnd(64, "0");
    const scripted: PlanSpec = { ...spec, scenario: { kind: "script", script: { sha256 } } };
    expect(describeScenario(scripted)).toBe("script e8b924c262ef");
    expect(scenarioScriptHash(scripted)).toBe(sha256.toLowerCase());
    expect(scenarioScriptHash(spec)).toBeUndefined();
  });

  it("describes which agents take the load", () => {
    expect(describeAgents(spec)).toBe("every online agent");
    expect(describeAgents({ ...spec, agents: { count: 2, labels: { region: "eu" }, onLost: "abort" } })).toBe(
      "up to 2 agents with region=eu · abort if one is lost",
    );
    expect(describeAgents({ ...spec, agents: { labels: { region: "nowhere" }, onLost: "continue" } })).toBe(
      "every online agent with region=nowhere",
    );
  });
});
