import type { AgentView } from "@throng/protocol/api";
import type { AgentSelector } from "@throng/protocol/plan";
import type { ServerWatchPlan } from "@throng/protocol/server-watch";

const isWatcher = (agent: AgentView) => agent.role === "watch";

const hasLabels = (agent: AgentView, labels: Record<string, string> | undefined) =>
  Object.entries(labels ?? {}).every(([key, value]) => agent.labels[key] === value);

/** The online load agents a plan may use (never a watcher): every label must match; `count` keeps the ones with most cores. */
export function selectAgents(agents: readonly AgentView[], selector: AgentSelector | undefined): AgentView[] {
  const matching = agents.filter((a) => a.status === "online" && !isWatcher(a) && hasLabels(a, selector?.labels));
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

/** The online, idle watchers a plan's `watch` asks for (every label must match); none when the plan does not ask. */
export function selectWatchers(agents: readonly AgentView[], watch: ServerWatchPlan | undefined): AgentView[] {
  if (!watch) return [];
  return agents.filter((a) => a.status === "online" && isWatcher(a) && hasLabels(a, watch.labels)).sort((a, b) => a.id.localeCompare(b.id));
}

/** Says why a plan that asks to watch its server cannot start, and what to run on the server's host. */
export function noWatcherReason(watch: ServerWatchPlan): string {
  const labels = Object.entries(watch.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  const flags = labels.map((l) => ` --label ${l}`).join("");
  return (
    `The plan asks to watch the server (watch${labels.length ? ` with labels ${labels.join(", ")}` : ""}) but no watcher is online and idle: ` +
    `run "throng-agent watch --name <server process> --server <API address>${flags}" on the server's host, or remove watch from the plan`
  );
}
