import { describe, expect, it } from "vitest";
import { PlanSpec } from "@throng/protocol/plan";
import { roomUnit, splitClients } from "./shards";

describe("splitting a run's clients into shards", () => {
  it("splits by cores and places every client exactly once", () => {
    const shards = splitClients(10, [
      { agentId: "a", cores: 2 },
      { agentId: "b", cores: 1 },
      { agentId: "c", cores: 1 },
    ]);
    expect(shards.map((s) => s.clients)).toEqual([5, 3, 2]);
    expect(shards.reduce((acc, s) => acc + s.clients, 0)).toBe(10);
    expect(shards.map((s) => s.shardIndex)).toEqual([0, 1, 2]);
  });

  it("leaves out agents with no clients", () => {
    expect(
      splitClients(1, [
        { agentId: "a", cores: 1 },
        { agentId: "b", cores: 1 },
      ]),
    ).toEqual([{ agentId: "a", clients: 1, shardIndex: 0 }]);
  });

  it("keeps a room on one agent: splits whole rooms, the partial room rides with the last shard", () => {
    const shards = splitClients(
      41,
      [
        { agentId: "a", cores: 1 },
        { agentId: "b", cores: 1 },
      ],
      10,
    );
    expect(shards.map((s) => s.clients)).toEqual([20, 21]);
    expect(
      splitClients(
        7,
        [
          { agentId: "a", cores: 1 },
          { agentId: "b", cores: 1 },
        ],
        10,
      ),
    ).toEqual([{ agentId: "a", clients: 7, shardIndex: 0 }]);
  });

  it("never gives an agent more than it holds: what is over its cap goes to the others by cores", () => {
    const shards = splitClients(200_000, [
      { agentId: "a", cores: 8, maxClients: 50_000 },
      { agentId: "b", cores: 2 },
      { agentId: "c", cores: 2, maxClients: 120_000 },
    ]);
    expect(shards).toEqual([
      { agentId: "a", clients: 50_000, shardIndex: 0 },
      { agentId: "b", clients: 75_000, shardIndex: 1 },
      { agentId: "c", clients: 75_000, shardIndex: 2 },
    ]);
    // A cap reached only after another agent's was taken off: capped in a second pass.
    const twoPasses = splitClients(100, [
      { agentId: "a", cores: 6, maxClients: 10 },
      { agentId: "b", cores: 2, maxClients: 40 },
      { agentId: "c", cores: 1 },
    ]);
    expect(twoPasses.map((s) => s.clients)).toEqual([10, 40, 50]);
    expect(
      splitClients(100, [
        { agentId: "a", cores: 1, maxClients: 100 },
        { agentId: "b", cores: 1, maxClients: 0 },
      ]),
    ).toEqual([{ agentId: "a", clients: 100, shardIndex: 0 }]);
  });

  it("places nothing when the agents together cannot hold the clients", () => {
    expect(
      splitClients(200_001, [
        { agentId: "a", cores: 1, maxClients: 100_000 },
        { agentId: "b", cores: 1, maxClients: 100_000 },
      ]),
    ).toEqual([]);
    expect(
      splitClients(200_000, [
        { agentId: "a", cores: 1, maxClients: 100_000 },
        { agentId: "b", cores: 1, maxClients: 100_000 },
      ]).map((s) => s.clients),
    ).toEqual([100_000, 100_000]);
  });

  it("caps in whole rooms: an agent that holds 35 players takes 3 rooms of 10", () => {
    const shards = splitClients(
      100,
      [
        { agentId: "a", cores: 4, maxClients: 35 },
        { agentId: "b", cores: 1 },
      ],
      10,
    );
    expect(shards.map((s) => s.clients)).toEqual([30, 70]);
    expect(
      splitClients(
        41,
        [
          { agentId: "a", cores: 1, maxClients: 19 },
          { agentId: "b", cores: 1, maxClients: 19 },
        ],
        10,
      ),
    ).toEqual([]);
  });

  it("gives nothing when there is no agent", () => {
    expect(splitClients(5, [])).toEqual([]);
  });

  it("splits a script plan with a roomSize in whole rooms: every shard starts on a room boundary, so ctx.room never spans agents", () => {
    const spec = PlanSpec.parse({
      name: "rooms",
      target: { protocol: "websocket", url: "ws://127.0.0.1:1/" },
      scenario: { kind: "script", script: { sha256: "a".repeat(64) }, roomSize: 4 },
      load: { clients: 30, durationSec: 5 },
    });
    const agents = [
      { agentId: "a", cores: 1 },
      { agentId: "b", cores: 2 },
      { agentId: "c", cores: 1 },
    ];
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
