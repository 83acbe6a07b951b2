import type { AgentView } from "@throng/protocol/api";
import type { AgentSelector } from "@throng/protocol/plan";

/** The online agents a plan may use: every label must match; `count` keeps the ones with most cores. */
export function selectAgents(agents: readonly AgentView[], selector: AgentSelector | undefined): AgentView[] {
  const labels = Object.entries(selector?.labels ?? {});
  const matching = agents.filter((a) => a.status === "online" && labels.every(([key, value]) => a.labels[key] === value));
  const ranked = [...matching].sort((a, b) => b.cores - a.cores || a.id.localeCompare(b.id));
  return selector?.count ? ranked.slice(0, selector.count) : ranked;
}

/** Says why no agent fits, so the user knows whether to start one or change the plan's labels. */
export function noAgentReason(selector: AgentSelector | undefined): string {
  const labels = Object.entries(selector?.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  return labels.length
    ? `No online, idle agent carries the labels ${labels.join(", ")}: start one with --label, or change the plan's agent labels`
    : "No agent is online and idle: start one from the Agents page, then run again";
}
