import { describe, expect, it } from "vitest";
import { splitClients } from "./shards";

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

  it("keeps a room on one agent: splits whole rooms, the remainder rides with the first shard", () => {
    const shards = splitClients(41, [{ agentId: "a", cores: 1 }, { agentId: "b", cores: 1 }], 10);
    expect(shards.map((s) => s.clients)).toEqual([21, 20]);
    expect(splitClients(7, [{ agentId: "a", cores: 1 }, { agentId: "b", cores: 1 }], 10)).toEqual([{ agentId: "a", clients: 7, shardIndex: 0 }]);
  });

  it("gives nothing when there is no agent", () => {
    expect(splitClients(5, [])).toEqual([]);
  });
});
