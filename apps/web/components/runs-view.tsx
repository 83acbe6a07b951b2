"use client";

import { useApiData } from "../hooks/use-api-data";
import { api } from "../lib/api";
import { RunList } from "./run-list";

const POLL_MS = 2000;

/** Runs page: every run of the organisation, statuses refreshed every few seconds. */
export function RunsView() {
  const { data, error } = useApiData((signal) => api.listRuns(signal), POLL_MS);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Runs</h1>
          <p>Each run is one execution of a plan; open one to see its charts and summary.</p>
        </div>
      </div>
      {error && (
        <p className="alert" role="alert">
          {error}
        </p>
      )}
      {data ? <RunList runs={data} now={Date.now()} /> : !error && <p className="loading">Loading runs…</p>}
    </>
  );
}
