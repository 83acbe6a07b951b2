import { describe, expect, it } from "vitest";
import type { AgentView } from "@throng/protocol/api";
import type { PlanSpec } from "@throng/protocol/plan";
import { noAgentReason, noWatcherReason, placeRun, selectAgents, selectWatchers } from "./agent-selection";

function agent(
  id: string,
  cores: number,
  labels: Record<string, string>,
  status: AgentView["status"] = "online",
  role: AgentView["role"] = "load",
  capacity?: AgentView["capacity"],
): AgentView {
  const currentRunId = status === "busy" ? `run-of-${id}` : null;
  return {
    id,
    hostname: id,
    os: "linux",
    arch: "x64",
    cores,
    memoryBytes: 1,
    version: "0.1.0",
    status,
    labels,
    lastSeenAt: null,
    currentRunId,
    ip: null,
    role,
    ...(capacity ? { capacity } : {}),
  };
}

describe("choosing agents for a run", () => {
  const fleet = [
    agent("a", 2, { region: "eu" }),
    agent("b", 8, { region: "eu", tier: "big" }),
    agent("c", 4, { region: "us" }),
    agent("d", 16, { region: "eu" }, "busy"),
  ];

  it("takes every online agent when the plan says nothing", () => {
    expect(selectAgents(fleet, undefined).map((a) => a.id)).toEqual(["b", "c", "a"]);
  });

  it("keeps only agents with every label, and at most `count` of them, biggest first", () => {
    expect(selectAgents(fleet, { labels: { region: "eu" }, onLost: "continue" }).map((a) => a.id)).toEqual(["b", "a"]);
    expect(selectAgents(fleet, { labels: { region: "eu" }, count: 1, onLost: "continue" }).map((a) => a.id)).toEqual([
      "b",
    ]);
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
    expect(noWatcherReason({ labels: { role: "server" } })).toMatch(
      /no watcher is online.*throng-agent watch --name <server process> --server <API address> --label role=server/,
    );
  });
});

describe("placing a run: start now, queue it, or refuse", () => {
  const fleet = [
    agent("a", 2, { region: "eu" }, "busy"),
    agent("b", 8, { region: "eu" }, "busy"),
    agent("c", 4, { region: "us" }),
    agent("off", 4, { region: "ap" }, "offline"),
  ];

  it("starts on idle agents that match", () => {
    expect(placeRun(fleet, { agents: { labels: { region: "us" }, onLost: "continue" } })).toMatchObject({
      kind: "ready",
      agents: [{ id: "c" }],
    });
  });

  it("queues when every agent that matches is online but busy, naming how many and their runs", () => {
    const placement = placeRun(fleet, { agents: { labels: { region: "eu" }, onLost: "continue" } });
    expect(placement).toEqual({
      kind: "busy",
      reason:
        "All 2 agents that match are busy with runs run-of-a, run-of-b; the run is queued and starts when one is free",
    });
    expect(placeRun([fleet[0]!], {})).toEqual({
      kind: "busy",
      reason: "The one agent that matches is busy with run run-of-a; the run is queued and starts when one is free",
    });
  });

  it("refuses when no agent that matches is connected at all (an offline one does not count)", () => {
    expect(placeRun(fleet, { agents: { labels: { region: "ap" }, onLost: "continue" } })).toMatchObject({
      kind: "none",
      reason: expect.stringMatching(/No online agent carries the labels region=ap/),
    });
    expect(placeRun([], {})).toEqual({
      kind: "none",
      reason: "No agent is online: start one from the Agents page, then run again",
    });
  });

  it("queues for a busy watcher and refuses without any", () => {
    const withWatchers = [agent("c", 4, {}), agent("w", 1, { role: "server" }, "busy", "watch")];
    expect(placeRun(withWatchers, { watch: { labels: { role: "server" } } })).toMatchObject({
      kind: "busy",
      reason: expect.stringMatching(/^The one watcher that matches is busy/),
    });
    expect(placeRun(withWatchers, { watch: { labels: { role: "db" } } })).toMatchObject({
      kind: "none",
      reason: expect.stringMatching(/no watcher is online/),
    });
  });
});

describe("placing a run within what each agent can hold", () => {
  const limited = (id: string, openFileLimit: number, status: AgentView["status"] = "online") =>
    agent(id, 2, {}, status, "load", { openFileLimit, clientsPerEngine: openFileLimit - 256, maxEngines: 256 });
  const load = (clients: number): Pick<PlanSpec, "load" | "scenario"> => ({
    load: { clients, durationSec: 60, rampUpSec: 10 },
    scenario: { kind: "ping-pong", intervalMs: 10_000, messageBytes: 164 } as PlanSpec["scenario"],
  });

  it("starts when the agents together hold the clients", () => {
    expect(placeRun([limited("rig-1", 1_024), limited("rig-2", 1_024)], load(393_216))).toMatchObject({
      kind: "ready",
    });
    // An older agent that did not say is not limited.
    expect(placeRun([agent("old", 2, {})], load(10_000_000))).toMatchObject({ kind: "ready" });
  });

  it("refuses, naming every agent and its limit and how to raise it, when even all of them cannot", () => {
    const placement = placeRun([limited("rig-1", 1_024), limited("rig-2", 1_024)], load(393_217));
    expect(placement.kind).toBe("none");
    expect("reason" in placement && placement.reason).toBe(
      "The agents cannot hold this plan's 393,217 clients: rig-1 up to 196,608 (256 engine processes × 768 clients, open-file limit 1,024); " +
        "rig-2 up to 196,608 (256 engine processes × 768 clients, open-file limit 1,024). Raise their open-file limit (ulimit -n, systemd LimitNOFILE, " +
        "docker --ulimit nofile, the Helm chart's agent.openFileLimit; docs/scale.md), start more agents, or lower load.clients",
    );
  });

  it("waits for a busy agent when the idle ones alone cannot hold the clients but all would", () => {
    const placement = placeRun([limited("rig-1", 1_024), limited("rig-2", 1_024, "busy")], load(300_000));
    expect(placement).toMatchObject({
      kind: "busy",
      reason: expect.stringMatching(/^The one agent that matches is busy/),
    });
  });
});

describe("placing a run only on agents whose owners let them run it", () => {
  const allowing = (id: string, capabilities: AgentView["capabilities"], status: AgentView["status"] = "online") => ({
    ...agent(id, 2, {}, status),
    capabilities,
  });
  const script: Pick<PlanSpec, "scenario" | "target"> = {
    target: { protocol: "websocket", url: "ws://127.0.0.1:7070/" } as PlanSpec["target"],
    scenario: { kind: "script", script: { sha256: "a".repeat(64) } } as PlanSpec["scenario"],
  };

  it("refuses before any run exists when no matching agent may run it, naming each agent and the flag", () => {
    const placement = placeRun(
      [
        allowing("rig-7", { scripts: "none", allowTargets: [] }),
        allowing("rig-8", { scripts: "any", allowTargets: ["10.0.0.5:9000"] }, "busy"),
      ],
      script,
    );
    expect(placement).toEqual({
      kind: "none",
      reason:
        "No agent that matches may run this plan: rig-7 does not run scripts (start it with --allow-scripts); rig-8 loads only 10.0.0.5:9000 " +
        "(its --allow-target list), not 127.0.0.1:7070. Restart one with that flag (the Agents page's install commands offer it), or change the plan",
    });
  });

  it("starts on the agents that may run it, leaving out one that may not; waits for a busy one that may", () => {
    const fleet = [
      allowing("rig-7", { scripts: "none", allowTargets: [] }),
      allowing("rig-8", { scripts: "any", allowTargets: [] }),
      agent("old", 2, {}),
    ];
    expect(placeRun(fleet, script)).toMatchObject({ kind: "ready", agents: [{ id: "old" }, { id: "rig-8" }] });
    expect(
      placeRun(
        [
          allowing("rig-7", { scripts: "none", allowTargets: [] }),
          allowing("rig-8", { scripts: "any", allowTargets: [] }, "busy"),
        ],
        script,
      ),
    ).toMatchObject({ kind: "busy" });
  });
});
