"use client";

import { useApiQuery } from "../../hooks/use-api-query";
import { api } from "../../lib/shared/api";
import { queryKeys } from "../../lib/shared/query-keys";
import { can } from "../../lib/shared/settings-permissions";
import { AgentInstallPanel } from "./agent-install-panel";
import { AgentList } from "./agent-list";
import { useMe } from "../shell/session-gate";
import { ErrorAlert } from "../ui/error-alert";

const POLL_MS = 1000;

/** Agents page: install an agent, watch the fleet (polled every second), label and revoke agents. */
export function AgentsView() {
  const { data, error } = useApiQuery(queryKeys.agents, (signal) => api.listAgents(signal), { pollMs: POLL_MS });
  const online = data?.filter((agent) => agent.status !== "offline").length ?? 0;
  const enrols = can(useMe().role, "agent.enrol"); // Only admins and owners may create enrolment tokens.
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Agents</h1>
          <p>Machines that generate load for your runs.</p>
        </div>
      </div>
      {enrols ? (
        <AgentInstallPanel />
      ) : (
        <p className="muted" data-testid="install-not-for-role">
          Admins and owners of the organisation install agents; ask one of them to add a machine.
        </p>
      )}
      <h2 id="agents-title" tabIndex={-1}>
        Fleet{" "}
        {data && (
          <span className="muted small" data-testid="agents-online">
            {online} of {data.length} online
          </span>
        )}
      </h2>
      <ErrorAlert error={error} />
      {data ? <AgentList agents={data} now={Date.now()} /> : !error && <p className="loading">Loading agents…</p>}
    </>
  );
}
