import { agentMaxClients } from "@throng/protocol/agent";
import { capabilityRefusal, capabilityRefusals } from "@throng/protocol/agent-capabilities";
import type { AgentView } from "@throng/protocol/api";
import type { AgentSelector, PlanSpec } from "@throng/protocol/plan";
import type { FieldError } from "@throng/protocol/errors";
import type { ServerWatchPlan } from "@throng/protocol/server-watch";
import { roomUnit, splitClients, type ShardCandidate } from "./shards";

const isWatcher = (agent: AgentView) => agent.role === "watch";

const hasLabels = (agent: AgentView, labels: Record<string, string> | undefined) =>
  Object.entries(labels ?? {}).every(([key, value]) => agent.labels[key] === value);

/** The online load agents a plan may use (never a watcher): every label must match; `count` keeps the ones with most cores. */
export function selectAgents(agents: readonly AgentView[], selector: AgentSelector | undefined): AgentView[] {
  const matching = agents.filter((a) => a.status === "online" && !isWatcher(a) && hasLabels(a, selector?.labels));
  const ranked = [...matching].sort((a, b) => b.cores - a.cores || a.id.localeCompare(b.id));
  return selector?.count ? ranked.slice(0, selector.count) : ranked;
}

/** The load agents that could take a plan's run once free: connected (idle or busy), every label matching. */
export function eligibleAgents(agents: readonly AgentView[], selector: AgentSelector | undefined): AgentView[] {
  return agents.filter((a) => a.status !== "offline" && !isWatcher(a) && hasLabels(a, selector?.labels));
}

/** Says why no agent fits, so the user knows whether to start one or change the plan's labels. */
export function noAgentReason(selector: AgentSelector | undefined): string {
  const labels = Object.entries(selector?.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  return labels.length
    ? `No online agent carries the labels ${labels.join(", ")}: start one with --label, or change the plan's agent labels`
    : "No agent is online: start one from the Agents page, then run again";
}

/** Why a run waits in the queue: the agents it may use are online, only busy (named by their runs). */
export function busyReason(busy: readonly AgentView[], what: "agent" | "watcher" = "agent"): string {
  const runs = [...new Set(busy.map((a) => a.currentRunId).filter((id): id is string => !!id))];
  const who = busy.length === 1 ? `The one ${what} that matches is` : `All ${busy.length} ${what}s that match are`;
  return `${who} busy with run${runs.length === 1 ? "" : "s"} ${runs.join(", ")}; the run is queued and starts when one is free`;
}

/** The online, idle watchers a plan's `watch` asks for (every label must match); none when the plan does not ask. */
export function selectWatchers(agents: readonly AgentView[], watch: ServerWatchPlan | undefined): AgentView[] {
  return eligibleWatchers(agents, watch).filter((a) => a.status === "online");
}

/** The connected watchers (idle or busy) a plan's `watch` could use once free. */
export function eligibleWatchers(agents: readonly AgentView[], watch: ServerWatchPlan | undefined): AgentView[] {
  if (!watch) return [];
  return agents
    .filter((a) => a.status !== "offline" && isWatcher(a) && hasLabels(a, watch.labels))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** Says why a plan that asks to watch its server cannot start, and what to run on the server's host. */
export function noWatcherReason(watch: ServerWatchPlan): string {
  const labels = Object.entries(watch.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  const flags = labels.map((l) => ` --label ${l}`).join("");
  return (
    `The plan asks to watch the server (watch${labels.length ? ` with labels ${labels.join(", ")}` : ""}) but no watcher is online: ` +
    `run "throng-agent watch --name <server process> --server <API address>${flags}" on the server's host, or remove watch from the plan`
  );
}

/** The agents as shard candidates: their cores, and the most clients each holds in whole rooms of `unit`. */
export function shardCandidates(agents: readonly AgentView[], unit = 1): ShardCandidate[] {
  return agents.map((a) => {
    const maxClients = agentMaxClients(a.capacity, unit);
    return { agentId: a.id, cores: a.cores, ...(Number.isFinite(maxClients) ? { maxClients } : {}) };
  });
}

const count = (n: number) => n.toLocaleString("en-US");

/** Says that `agents` together cannot hold `clients`, naming each one's limit and how to raise it. */
export function capacityReason(clients: number, agents: readonly AgentView[], unit = 1): string {
  // Biggest first, then by name: the same words for the same fleet.
  const ordered = [...agents].sort(
    (a, b) =>
      agentMaxClients(b.capacity, unit) - agentMaxClients(a.capacity, unit) || a.hostname.localeCompare(b.hostname),
  );
  const each = ordered.map((a) => {
    if (!a.capacity) return `${a.hostname} (no limit reported)`;
    const { openFileLimit, clientsPerEngine, maxEngines } = a.capacity;
    return `${a.hostname} up to ${count(agentMaxClients(a.capacity, unit))} (${maxEngines} engine processes × ${count(clientsPerEngine)} clients, open-file limit ${count(openFileLimit)})`;
  });
  return (
    `The agents cannot hold this plan's ${count(clients)} clients: ${each.join("; ")}. ` +
    "Raise their open-file limit (ulimit -n, systemd LimitNOFILE, docker --ulimit nofile, the Helm chart's agent.openFileLimit; docs/scale.md), start more agents, or lower load.clients"
  );
}

/** Whether `agents` can hold the plan's clients in whole rooms (every agent's share under what it reported). */
function canHold(agents: readonly AgentView[], spec: RunLoad): boolean {
  if (!spec.load || !spec.scenario) return true;
  return (
    splitClients(spec.load.clients, shardCandidates(agents, roomUnit(spec.scenario)), roomUnit(spec.scenario)).length >
    0
  );
}

/**
 * The parts of a plan placing a run reads; the load and scenario when its clients must fit the agents' limits, and
 * the target too when the agents' owners' permissions (scripts, targets) must let them run it.
 */
type RunLoad = Pick<PlanSpec, "agents" | "watch"> & {
  load?: Pick<PlanSpec["load"], "clients">;
  scenario?: PlanSpec["scenario"];
  target?: PlanSpec["target"];
};

/** The agents whose owners let them run the plan (or did not say); all of them when the plan's parts are not given. */
function permitted(agents: readonly AgentView[], spec: RunLoad): AgentView[] {
  const { scenario, target } = spec;
  if (!scenario || !target) return [...agents];
  return agents.filter((agent) => capabilityRefusal(agent.capabilities, { scenario, target }) === null);
}

/**
 * A plan page's warning when the connected agents that match the plan would all refuse it (none connected is said
 * by Start run itself): at the plan's `agents`, naming each agent and the flag.
 */
export function agentProblems(spec: PlanSpec, fleet: readonly AgentView[]): FieldError[] {
  const matching = eligibleAgents(fleet, spec.agents);
  if (matching.length === 0 || permitted(matching, spec).length > 0) return [];
  return [{ path: "agents", message: permissionReason(matching, spec) }];
}

/** Says that none of the matching agents may run the plan, naming each one and the flag its owner would add. */
export function permissionReason(
  agents: readonly AgentView[],
  spec: Required<Pick<RunLoad, "scenario" | "target">>,
): string {
  return `No agent that matches may run this plan: ${capabilityRefusals(agents, spec)}. Restart one with that flag (the Agents page's install commands offer it), or change the plan`;
}

/** Where a run can go now: onto idle agents, into the queue (its agents are only busy), or nowhere (none connected). */
export type Placement =
  | { kind: "ready"; agents: AgentView[]; watchers: AgentView[] }
  | { kind: "busy"; reason: string }
  | { kind: "none"; reason: string };

/** The one decision both the API (start or refuse) and the workers (start or keep waiting) make for a run. */
export function placeRun(fleet: readonly AgentView[], spec: RunLoad): Placement {
  // An agent its owner does not let run the plan would refuse it at 0 s: it is not a candidate, busy or idle.
  const usable = permitted(fleet, spec);
  const matching = eligibleAgents(fleet, spec.agents);
  const eligible = eligibleAgents(usable, spec.agents);
  if (matching.length > 0 && eligible.length === 0)
    return { kind: "none", reason: permissionReason(matching, spec as Required<RunLoad>) };
  const agents = selectAgents(usable, spec.agents);
  if (agents.length === 0) {
    return eligible.length
      ? { kind: "busy", reason: busyReason(eligible) }
      : { kind: "none", reason: noAgentReason(spec.agents) };
  }
  // Never more clients to an agent than it can hold: refused when even every connected agent could not, else
  // queued for the busy ones. A plan's `count` holds the agents to its most-cores choice, busy ones included.
  if (!canHold(agents, spec)) {
    const couldUse = spec.agents?.count
      ? [...eligible].sort((a, b) => b.cores - a.cores || a.id.localeCompare(b.id)).slice(0, spec.agents.count)
      : eligible;
    const busy = couldUse.filter((a) => a.status === "busy");
    if (busy.length > 0 && canHold(couldUse, spec)) return { kind: "busy", reason: busyReason(busy) };
    return { kind: "none", reason: capacityReason(spec.load!.clients, agents, roomUnit(spec.scenario!)) };
  }
  const watchers = selectWatchers(fleet, spec.watch);
  if (spec.watch && watchers.length === 0) {
    const eligible = eligibleWatchers(fleet, spec.watch);
    return eligible.length
      ? { kind: "busy", reason: busyReason(eligible, "watcher") }
      : { kind: "none", reason: noWatcherReason(spec.watch) };
  }
  return { kind: "ready", agents, watchers };
}
