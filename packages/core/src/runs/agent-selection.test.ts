import { describe, expect, it } from "vitest";
import type { AgentView } from "@throng/protocol/api";
import { noAgentReason, noWatcherReason, placeRun, selectAgents, selectWatchers } from "./agent-selection";

function agent(id: string, cores: number, labels: Record<string, string>, status: AgentView["status"] = "online", role: AgentView["role"] = "load"): AgentView {
  const currentRunId = status === "busy" ? `run-of-${id}` : null;
  return { id, hostname: id, os: "linux", arch: "x64", cores, memoryBytes: 1, version: "0.1.0", status, labels, lastSeenAt: null, currentRunId, ip: null, role };
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

describe("placing a run: start now, queue it, or refuse", () => {
  const fleet = [agent("a", 2, { region: "eu" }, "busy"), agent("b", 8, { region: "eu" }, "busy"), agent("c", 4, { region: "us" }), agent("off", 4, { region: "ap" }, "offline")];

  it("starts on idle agents that match", () => {
    expect(placeRun(fleet, { agents: { labels: { region: "us" }, onLost: "continue" } })).toMatchObject({ kind: "ready", agents: [{ id: "c" }] });
  });

  it("queues when every agent that matches is online but busy, naming how many and their runs", () => {
    const placement = placeRun(fleet, { agents: { labels: { region: "eu" }, onLost: "continue" } });
    expect(placement).toEqual({ kind: "busy", reason: "All 2 agents that match are busy with runs run-of-a, run-of-b; the run is queued and starts when one is free" });
    expect(placeRun([fleet[0]!], {})).toEqual({ kind: "busy", reason: "The one agent that matches is busy with run run-of-a; the run is queued and starts when one is free" });
  });

  it("refuses when no agent that matches is connected at all (an offline one does not count)", () => {
    expect(placeRun(fleet, { agents: { labels: { region: "ap" }, onLost: "continue" } })).toMatchObject({ kind: "none", reason: expect.stringMatching(/No online agent carries the labels region=ap/) });
    expect(placeRun([], {})).toEqual({ kind: "none", reason: "No agent is online: start one from the Agents page, then run again" });
  });

  it("queues for a busy watcher and refuses without any", () => {
    const withWatchers = [agent("c", 4, {}), agent("w", 1, { role: "server" }, "busy", "watch")];
    expect(placeRun(withWatchers, { watch: { labels: { role: "server" } } })).toMatchObject({ kind: "busy", reason: expect.stringMatching(/^The one watcher that matches is busy/) });
    expect(placeRun(withWatchers, { watch: { labels: { role: "db" } } })).toMatchObject({ kind: "none", reason: expect.stringMatching(/no watcher is online/) });
  });
});
