"use client";

import Link from "next/link";
import { useApiQuery } from "../../hooks/use-api-query";
import { formatDateTime, formatInteger } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { reportApi } from "../../lib/shared/report-api";
import { DataTable } from "../ui/data-table";
import { ErrorAlert } from "../ui/error-alert";

/** Servers under test with saved capacity estimates, each with its latest figure and change. */
export function TargetList() {
  const targets = useApiQuery(queryKeys.targets, (signal) => reportApi.targets(signal));
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Targets</h1>
          <p>How many players each server holds while meeting its SLOs, build after build.</p>
        </div>
      </div>
      <ErrorAlert error={targets.error} />
      {!targets.data && !targets.error && <p className="loading">Loading targets…</p>}
      {targets.data && targets.data.length === 0 && (
        <div className="empty" data-testid="targets-empty">
          <strong>No saved estimates yet.</strong>
          Run a plan with a step-up load shape, open the run’s report and press “Save estimate” with the server’s name
          and build.
        </div>
      )}
      {targets.data && targets.data.length > 0 && (
        <DataTable
          caption="Targets and their latest capacity estimate"
          columns={[
            "Target",
            "Latest build",
            { label: "Holds", numeric: true },
            "Change",
            { label: "Estimates", numeric: true },
            "Saved",
          ]}
        >
          {targets.data.map((target) => (
            <tr key={target.name} data-testid="target-row" data-target={target.name}>
              <th scope="row">
                <Link href={`/targets/${encodeURIComponent(target.name)}`}>{target.name}</Link>
              </th>
              <td>{target.latest.build}</td>
              <td className="num">
                {target.latest.clients === null ? "—" : `${formatInteger(target.latest.clients)} clients`}
                {!target.latest.valid && <span className="badge warn"> invalid</span>}
              </td>
              <td>{target.latest.change ?? <span className="muted">—</span>}</td>
              <td className="num">{formatInteger(target.estimates)}</td>
              <td>{formatDateTime(target.latest.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
