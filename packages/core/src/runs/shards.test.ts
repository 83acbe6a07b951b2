import { describe, expect, it } from "vitest";
import { PlanSpec } from "@throng/protocol/plan";
import { roomUnit, splitClients } from "./shards";

describe("splitting a run's clients into shards", () => {
  it("splits by cores and places every client exactly once", () => {
    const shards = splitClients(10, [{ agentId: "a", cores: 2 }, { agentId: "b", cores: 1 }, { agentId: "c", cores: 1 }]);
    expect(shards.map((s) => s.clients)).toEqual([5, 3, 2]);
    expect(shards.reduce((acc, s) => acc + s.clients, 0)).toBe(10);
    expect(shards.map((s) => s.shardIndex)).toEqual([0, 1, 2]);
  });

  it("leaves out agents with no clients", () => {
    expect(splitClients(1, [{ agentId: "a", cores: 1 }, { agentId: "b", cores: 1 }])).toEqual([{ agentId: "a", clients: 1, shardIndex: 0 }]);
  });

  it("keeps a room on one agent: splits whole rooms, the partial room rides with the last shard", () => {
    const shards = splitClients(41, [{ agentId: "a", cores: 1 }, { agentId: "b", cores: 1 }], 10);
    expect(shards.map((s) => s.clients)).toEqual([20, 21]);
    expect(splitClients(7, [{ agentId: "a", cores: 1 }, { agentId: "b", cores: 1 }], 10)).toEqual([{ agentId: "a", clients: 7, shardIndex: 0 }]);
  });

  it("gives nothing when there is no agent", () => {
    expect(splitClients(5, [])).toEqual([]);
  });

  it("splits a script plan with a roomSize in whole rooms: every shard starts on a room boundary, so ctx.room never spans agents", () => {
    const spec = PlanSpec.parse({
      name: "rooms", target: { protocol: "websocket", url: "ws://127.0.0.1:1/" },
      scenario: { kind: "script", script: { sha256: "a".repeat(64) }, roomSize: 4 }, load: { clients: 30, durationSec: 5 },
    });
    const agents = [{ agentId: "a", cores: 1 }, { agentId: "b", cores: 2 }, { agentId: "c", cores: 1 }];
    const shards = splitClients(spec.load.clients, agents, roomUnit(spec.scenario));
    expect(shards.reduce((acc, s) => acc + s.clients, 0)).toBe(30);
    let before = 0;
    for (const shard of shards.slice(0, -1)) {
      expect(before % 4).toBe(0);
      expect(shard.clients % 4).toBe(0);
      before += shard.clients;
    }
    expect(before % 4).toBe(0); // the last shard starts on a boundary too and holds the partial room
  });
});
