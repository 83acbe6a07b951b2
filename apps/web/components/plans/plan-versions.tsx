"use client";

import { useState } from "react";
import { useApiQuery } from "../../hooks/use-api-query";
import { api } from "../../lib/shared/api";
import { formatDateTime } from "../../lib/shared/format";
import { planToText } from "../../lib/plans/plan-text";
import { queryKeys } from "../../lib/shared/query-keys";
import { CodeBlock } from "../ui/code-block";
import { DataTable } from "../ui/data-table";
import { ErrorAlert } from "../ui/error-alert";

/** Every saved version of a plan, newest first; any one can be shown as YAML (read only). */
export function PlanVersions({ planId, current }: { planId: string; current: number }) {
  const versions = useApiQuery(queryKeys.planVersions(planId), (signal) => api.listPlanVersions(planId, signal));
  const [shown, setShown] = useState<number | null>(null);
  const open = versions.data?.find((item) => item.version === shown);
  return (
    <section className="panel" aria-labelledby="plan-versions-title">
      <h2 id="plan-versions-title">Versions</h2>
      <ErrorAlert error={versions.error} />
      {!versions.data && !versions.error && <p className="loading">Loading versions…</p>}
      {versions.data && (
        <DataTable
          caption="Saved versions of the plan, newest first"
          columns={["Version", "Saved", ""]}
          testId="plan-versions"
        >
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
        </DataTable>
      )}
      {open && (
        <CodeBlock
          text={planToText(open.spec, "yaml")}
          label={`Version ${open.version} as YAML`}
          testId="plan-version-file"
          wrap={false}
        />
      )}
    </section>
  );
}
