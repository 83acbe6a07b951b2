"use client";

import Link from "next/link";
import { useRef, useState } from "react";
import type { AgentView } from "@throng/protocol/api";
import { capabilityWords } from "@throng/protocol/agent-capabilities";
import { formatAgo, formatGiB, formatInteger } from "../../lib/shared/format";
import { formatLabels } from "../../lib/shared/labels";
import { agentTone } from "../../lib/shared/status";
import { DataTable, type DataColumn } from "../ui/data-table";
import { AgentLabelsDialog, RevokeAgentDialog } from "./agent-dialogs";
import { can } from "../../lib/shared/settings-permissions";
import { useMe } from "../shell/session-gate";
import { StatusBadge } from "../ui/status-badge";

const AGENT_COLUMNS: readonly DataColumn[] = [
  "Agent",
  "Status",
  "Labels",
  "Capacity",
  "May run",
  "Version",
  "Run",
  "Last seen",
  "",
];

/** What the agent's owner lets it run, from its hello; an older agent did not say (it refuses at the start instead). */
function AgentPermissions({ agent }: { agent: AgentView }) {
  const words = capabilityWords(agent.capabilities);
  if (agent.role === "watch") return <span className="muted">no load</span>;
  if (!words) return <span className="muted">not said (older agent)</span>;
  return (
    <div className="small" data-testid="agent-capabilities">
      <div data-testid="agent-scripts">scripts: {words.scripts}</div>
      <div data-testid="agent-targets">targets: {words.targets}</div>
    </div>
  );
}

/** Cores and memory, and when the agent said it, the connections its open-file limit lets it hold. */
function AgentCapacityCell({ agent }: { agent: AgentView }) {
  const { capacity } = agent;
  return (
    <>
      <span data-testid="agent-cores">{agent.cores}</span> cores
      <div className="muted small">{formatGiB(agent.memoryBytes)}</div>
      {capacity && (
        <div className="muted small" data-testid="agent-open-files">
          open files {formatInteger(capacity.openFileLimit)} · up to {capacity.maxEngines} engines
        </div>
      )}
    </>
  );
}

type Open = { kind: "labels" | "revoke"; agent: AgentView } | null;

export function LabelChips({ labels }: { labels: Readonly<Record<string, string>> }) {
  const chips = formatLabels(labels);
  if (chips.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="chips" aria-label="Labels">
      {chips.map((chip) => (
        <li key={chip} className="chip">
          {chip}
        </li>
      ))}
    </ul>
  );
}

/** The organisation's agents, kept current by the page; labels editable, agents revocable (the dialogs refresh the list). */
export function AgentList({ agents, now }: { agents: AgentView[]; now: number }) {
  const [open, setOpen] = useState<Open>(null);
  const { role } = useMe();
  const manages = can(role, "agent.manage"); // Labels and revoke: admins and owners (the API checks too).
  const opener = useRef<HTMLElement | null>(null);

  const show = (kind: "labels" | "revoke", agent: AgentView) => {
    opener.current = document.activeElement as HTMLElement | null;
    setOpen({ kind, agent });
  };
  // Focus goes back where it was; a revoked agent's row is gone, so then to the table.
  const close = (changed: boolean) => {
    const revoked = changed && open?.kind === "revoke";
    setOpen(null);
    requestAnimationFrame(() => (revoked ? document.getElementById("agents-title") : opener.current)?.focus());
  };

  if (agents.length === 0) {
    return (
      <div className="empty" data-testid="agents-empty">
        <strong>No agents yet.</strong>
        {can(role, "agent.enrol")
          ? "Create an enrolment token above and run one of its commands on a machine that should generate load. The agent shows up here within seconds, and plans can run as soon as one is online."
          : "An admin or owner of the organisation adds them; plans can run as soon as one is online."}
      </div>
    );
  }
  return (
    <>
      <DataTable caption="Agents" columns={AGENT_COLUMNS} testId="agent-list">
        {agents.map((agent) => (
          <tr key={agent.id} data-testid="agent-row" data-status={agent.status} data-agent-id={agent.id}>
            <td>
              <strong>{agent.hostname}</strong>
              <div className="muted small">
                {agent.os} · {agent.arch}
                {agent.ip && <> · {agent.ip}</>}
              </div>
              {agent.role === "watch" && (
                <div className="muted small" data-testid="agent-role">
                  watcher: samples the server under test on this host
                </div>
              )}
            </td>
            <td>
              <StatusBadge status={agent.status} tone={agentTone(agent.status)} testId="agent-status" />
            </td>
            <td data-testid="agent-labels">
              <LabelChips labels={agent.labels} />
            </td>
            {/* Wraps: "open files … · up to … engines" kept on one line made the table 2 px wider than a 1024 px laptop. */}
            <td>
              <AgentCapacityCell agent={agent} />
            </td>
            <td>
              <AgentPermissions agent={agent} />
            </td>
            <td>{agent.version}</td>
            <td>
              {agent.currentRunId ? (
                <Link href={`/runs/${agent.currentRunId}`} data-testid="agent-current-run">
                  current run
                </Link>
              ) : (
                <span className="muted">idle</span>
              )}
            </td>
            <td title={agent.lastSeenAt ?? undefined} className="nowrap">
              {formatAgo(agent.lastSeenAt, now)}
            </td>
            <td className="actions">
              {manages && (
                <>
                  <button
                    className="button small"
                    type="button"
                    onClick={() => show("labels", agent)}
                    aria-label={`Edit labels of ${agent.hostname}`}
                    data-testid="edit-labels"
                  >
                    Labels
                  </button>
                  <button
                    className="button small danger-outline"
                    type="button"
                    onClick={() => show("revoke", agent)}
                    aria-label={`Revoke ${agent.hostname}`}
                    data-testid="revoke-agent"
                  >
                    Revoke
                  </button>
                </>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      {open?.kind === "labels" && (
        <AgentLabelsDialog agent={open.agent} onClose={() => close(false)} onSaved={() => close(true)} />
      )}
      {open?.kind === "revoke" && (
        <RevokeAgentDialog agent={open.agent} onClose={() => close(false)} onRevoked={() => close(true)} />
      )}
    </>
  );
}
