"use client";

import { useState } from "react";
import { useApiData } from "../hooks/use-api-data";
import { api } from "../lib/api";
import { formatDateTime } from "../lib/format";
import { planToText } from "../lib/plan-text";
import { CodeBlock } from "./code-block";

/** Every saved version of a plan, newest first; any one can be shown as YAML (read only). */
export function PlanVersions({ planId, current }: { planId: string; current: number }) {
  const versions = useApiData((signal) => api.listPlanVersions(planId, signal));
  const [shown, setShown] = useState<number | null>(null);
  const open = versions.data?.find((item) => item.version === shown);
  return (
    <section className="panel" aria-labelledby="plan-versions-title">
      <h2 id="plan-versions-title">Versions</h2>
      {versions.error && (
        <p className="alert" role="alert">
          {versions.error}
        </p>
      )}
      {!versions.data && !versions.error && <p className="loading">Loading versions…</p>}
      {versions.data && (
        <div className="table-wrap">
          <table className="data" data-testid="plan-versions">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Saved</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {versions.data.map((item) => (
                <tr key={item.version} data-testid="plan-version-row">
                  <td>
                    v{item.version}
                    {item.version === current && <span className="muted small"> (current)</span>}
                  </td>
                  <td>{formatDateTime(item.createdAt)}</td>
                  <td>
                    <button
                      className="button small"
                      type="button"
                      aria-expanded={shown === item.version}
                      aria-label={`${shown === item.version ? "Hide" : "View"} version ${item.version}`}
                      onClick={() => setShown(shown === item.version ? null : item.version)}
                    >
                      {shown === item.version ? "Hide" : "View"}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open && <CodeBlock text={planToText(open.spec, "yaml")} label={`Version ${open.version} as YAML`} testId="plan-version-file" wrap={false} />}
    </section>
  );
}
