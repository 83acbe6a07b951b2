import { describe, expect, it } from "vitest";
import type { AgentView } from "@throng/protocol/api";
import { noAgentReason, selectAgents } from "./agent-selection";

function agent(id: string, cores: number, labels: Record<string, string>, status: AgentView["status"] = "online"): AgentView {
  return { id, hostname: id, os: "linux", arch: "x64", cores, memoryBytes: 1, version: "0.1.0", status, labels, lastSeenAt: null, currentRunId: null, ip: null };
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
