"use client";

import { useMemo } from "react";
import type { AgentView } from "@throng/protocol/api";
import type { RunView } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { formatDecimal, formatGiB, formatInteger, formatMemory, formatMs } from "../../lib/shared/format";
import { openFiles } from "../../lib/runs/agent-health";
import { agentFates } from "../../lib/runs/run-events";
import { runAgentStatus } from "../../lib/shared/status";
import { DataTable, type DataColumn } from "../ui/data-table";
import { StatusBadge } from "../ui/status-badge";

const AGENT_COLUMNS: readonly DataColumn[] = [
  "Agent",
  "Status",
  { label: "CPU", numeric: true },
  { label: "Host steal", numeric: true, title: "CPU time the hypervisor took from the agent's host (from /proc/stat)" },
  { label: "Event loop p99", numeric: true },
  { label: "Memory", numeric: true },
  { label: "Open files", numeric: true },
  "Limit",
];

interface RunAgentsProps {
  run: RunView;
  agents: readonly AgentView[];
  points: readonly SeriesPoint[];
  live: boolean;
}

/**
 * The agents of this run: those the fleet says are on it now, those that reported health, and those its events
 * name; with each one's latest health, so a saturated agent is told apart from a slow server.
 */
export function RunAgents({ run, agents, points, live }: RunAgentsProps) {
  const latestHealth = useMemo(() => {
    const latest = new Map<string, NonNullable<SeriesPoint["agentHealth"]>[number]>();
    for (const point of points) for (const health of point.agentHealth ?? []) latest.set(health.agentId, health);
    return latest;
  }, [points]);
  const fates = agentFates(run.events);
  const ids = new Set<string>([
    ...agents.filter((agent) => agent.currentRunId === run.id).map((agent) => agent.id),
    ...latestHealth.keys(),
    ...fates.keys(),
  ]);
  const byId = new Map(agents.map((agent) => [agent.id, agent]));
  const saturated = new Map((run.summary?.saturatedAgents ?? []).map((entry) => [entry.agentId, entry]));

  return (
    <section className="panel" aria-labelledby="run-agents-title" data-testid="run-agents">
      <h2 id="run-agents-title">Agents</h2>
      {ids.size === 0 ? (
        <p className="muted">
          {live
            ? "Waiting for agents to take their share of the load…"
            : run.summary
              ? `${run.summary.agents} agent(s) took part.`
              : "No agent took part."}
        </p>
      ) : (
        <DataTable caption="Agents of this run" columns={AGENT_COLUMNS}>
          {[...ids].map((id) => {
            const agent = byId.get(id);
            const health = latestHealth.get(id);
            const fate = fates.get(id);
            const { status, tone } = runAgentStatus({
              live,
              runId: run.id,
              ...(agent ? { agent } : {}),
              lost: fate?.kind === "agent-lost",
            });
            const limit = health?.saturated
              ? (health.saturatedReason ?? "saturated")
              : saturated.get(id)
                ? `saturated ${saturated.get(id)!.seconds} s: ${saturated.get(id)!.reason}`
                : null;
            return (
              <tr key={id} data-testid="run-agent-row" data-agent-id={id}>
                <td>
                  <strong>{agent?.hostname ?? id.slice(0, 8)}</strong>
                  {agent && (
                    <div className="muted small">
                      {agent.cores} cores · {formatGiB(agent.memoryBytes)}
                      {health?.engines && health.engines > 1 ? ` · ${health.engines} engine processes` : ""}
                    </div>
                  )}
                  {agent?.role === "watch" && (
                    <div className="muted small" data-testid="run-agent-watcher">
                      watches the server (its figures are under Server under test)
                    </div>
                  )}
                </td>
                <td>
                  <StatusBadge status={status} tone={tone} testId="run-agent-status" />
                </td>
                <td className="num">{health ? `${formatInteger(health.cpuPercent)} %` : "—"}</td>
                <td className="num" data-testid="run-agent-steal">
                  {health?.stealPercent === undefined ? "—" : `${formatDecimal(health.stealPercent, 1)} %`}
                </td>
                <td className="num">{health ? formatMs(health.eventLoopP99Ms) : "—"}</td>
                <td className="num">{health ? formatMemory(health.rssBytes) : "—"}</td>
                <td className="num" data-testid="run-agent-open-files" title={openFiles(health).title}>
                  {openFiles(health).text}
                </td>
                <td>
                  {limit ? (
                    <span className="badge warn">{limit}</span>
                  ) : (
                    <span className="muted">{health ? "ok" : "—"}</span>
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </section>
  );
}
