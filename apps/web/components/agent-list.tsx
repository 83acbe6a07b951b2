"use client";

import type { AgentView } from "@throng/protocol/api";
import { formatAgo, formatGiB } from "../lib/format";
import { agentTone } from "../lib/status";
import { StatusBadge } from "./status-badge";

/** The organisation's agents, newest state first as the API orders them. */
export function AgentList({ agents, now }: { agents: AgentView[]; now: number }) {
  if (agents.length === 0) {
    return (
      <div className="empty" data-testid="agents-empty">
        <strong>No agents yet — create a token and run the command on a test rig.</strong>
        The agent appears here as soon as it connects.
      </div>
    );
  }
  return (
    <div className="table-wrap">
      <table className="data" data-testid="agent-list">
        <caption className="sr-only">Agents</caption>
        <thead>
          <tr>
            <th scope="col">Hostname</th>
            <th scope="col">Status</th>
            <th scope="col" className="num">Cores</th>
            <th scope="col" className="num">Memory</th>
            <th scope="col">Version</th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {agents.map((agent) => (
            <tr key={agent.id} data-testid="agent-row" data-status={agent.status} data-agent-id={agent.id}>
              <td>
                <strong>{agent.hostname}</strong>
                <div className="muted">
                  {agent.os} · {agent.arch}
                </div>
              </td>
              <td>
                <StatusBadge status={agent.status} tone={agentTone(agent.status)} testId="agent-status" />
              </td>
              <td className="num">{agent.cores}</td>
              <td className="num">{formatGiB(agent.memoryBytes)}</td>
              <td>{agent.version}</td>
              <td title={agent.lastSeenAt ?? undefined}>{formatAgo(agent.lastSeenAt, now)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
