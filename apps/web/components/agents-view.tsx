"use client";

import { useApiData } from "../hooks/use-api-data";
import { api } from "../lib/api";
import { AgentList } from "./agent-list";
import { EnrolmentTokenPanel } from "./enrolment-token-panel";

const POLL_MS = 1000;

/** Agents page: enrol a rig, watch the fleet (polled every second). */
export function AgentsView() {
  const { data, error } = useApiData((signal) => api.listAgents(signal), POLL_MS);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Agents</h1>
          <p>Machines that generate load for your runs.</p>
        </div>
      </div>
      <EnrolmentTokenPanel />
      {error && (
        <p className="alert" role="alert">
          {error}
        </p>
      )}
      {data ? <AgentList agents={data} now={Date.now()} /> : !error && <p className="loading">Loading agents…</p>}
    </>
  );
}
