import { describe, expect, it } from "vitest";
import type { AgentView } from "@throng/protocol/api";
import { noAgentReason, noWatcherReason, selectAgents, selectWatchers } from "./agent-selection";

function agent(id: string, cores: number, labels: Record<string, string>, status: AgentView["status"] = "online", role: AgentView["role"] = "load"): AgentView {
  return { id, hostname: id, os: "linux", arch: "x64", cores, memoryBytes: 1, version: "0.1.0", status, labels, lastSeenAt: null, currentRunId: null, ip: null, role };
}

describe("choosing agents for a run", () => {
  const fleet = [agent("a", 2, { region: "eu" }), agent("b", 8, { region: "eu", tier: "big" }), agent("c", 4, { region: "us" }), agent("d", 16, { region: "eu" }, "busy")];

  it("takes every online agent when the plan says nothing", () => {
    expect(selectAgents(fleet, undefined).map((a) => a.id)).toEqual(["b", "c", "a"]);
  });

  it("keeps only agents with every label, and at most `count` of them, biggest first", () => {
    expect(selectAgents(fleet, { labels: { region: "eu" }, onLost: "continue" }).map((a) => a.id)).toEqual(["b", "a"]);
    expect(selectAgents(fleet, { labels: { region: "eu" }, count: 1, onLost: "continue" }).map((a) => a.id)).toEqual(["b"]);
    expect(selectAgents(fleet, { labels: { region: "ap" }, onLost: "continue" })).toEqual([]);
  });

  it("explains an empty selection", () => {
    expect(noAgentReason({ labels: { region: "ap" }, onLost: "continue" })).toMatch(/region=ap/);
    expect(noAgentReason(undefined)).toMatch(/Agents page/);
  });
});

describe("choosing watchers of the server under test", () => {
  const fleet = [
    agent("load", 8, { role: "server" }),
    agent("w1", 1, { role: "server" }, "online", "watch"),
    agent("w2", 1, { role: "db" }, "online", "watch"),
    agent("w3", 1, { role: "server" }, "busy", "watch"),
  ];

  it("never gives load to a watcher, and gives watch shards only to idle watchers with the plan's labels", () => {
    expect(selectAgents(fleet, undefined).map((a) => a.id)).toEqual(["load"]);
    expect(selectWatchers(fleet, { labels: { role: "server" } }).map((a) => a.id)).toEqual(["w1"]);
    expect(selectWatchers(fleet, {}).map((a) => a.id)).toEqual(["w1", "w2"]);
    expect(selectWatchers(fleet, undefined)).toEqual([]);
  });

  it("says what to run on the server's host when no watcher fits", () => {
    expect(noWatcherReason({ labels: { role: "server" } })).toMatch(/no watcher is online.*throng-agent watch --name <server process> --server <API address> --label role=server/);
  });
});
