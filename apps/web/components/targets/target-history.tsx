"use client";

import Link from "next/link";
import { useApiQuery } from "../../hooks/use-api-query";
import { HISTORY_CHART, historyBars, latestChange } from "../../lib/targets/capacity-history";
import { formatDateTime, formatInteger } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { reportApi } from "../../lib/shared/report-api";
import { formatAxisCount } from "../../lib/charts/series";
import { DataTable } from "../ui/data-table";
import { ErrorAlert } from "../ui/error-alert";

/** One target's capacity, build by build: a bar chart, the latest change, and each estimate with its report. */
export function TargetHistory({ name }: { name: string }) {
  const history = useApiQuery(queryKeys.targetEstimates(name), (signal) => reportApi.targetEstimates(name, signal));
  const estimates = history.data ?? [];
  const { bars, yTicks } = historyBars(estimates);
  const { width, height, left, right, bottom } = HISTORY_CHART;
  return (
    <>
      <div className="page-head">
        <div>
          <p className="muted small">
            <Link href="/targets">Targets</Link> / {name}
          </p>
          <h1>{name}</h1>
        </div>
      </div>
      <ErrorAlert error={history.error} />
      {!history.data && !history.error && <p className="loading">Loading estimates…</p>}
      {history.data && estimates.length === 0 && (
        <div className="empty" data-testid="target-empty">
          <strong>No estimates for {name}.</strong>Save one from a step-up run’s report to start its history.
        </div>
      )}
      {estimates.length > 0 && (
        <>
          <section className="panel" aria-labelledby="target-change-title">
            <h2 id="target-change-title">Latest change</h2>
            <p className="report-sentence" data-testid="target-change">
              {latestChange(estimates)}
            </p>
            <figure className="capacity-chart" data-testid="target-chart">
              <svg
                viewBox={`0 0 ${width} ${height}`}
                role="img"
                aria-label={`Capacity by build: ${bars.map((b) => `${b.build} ${b.clients ?? "none"}`).join(", ")}`}
              >
                {yTicks.map((tick) => (
                  <g key={tick.value}>
                    <line x1={left} x2={width - right} y1={tick.y} y2={tick.y} stroke="#d1d9e0" />
                    <text x={left - 6} y={tick.y + 4} textAnchor="end" fontSize="11" fill="#59636e">
                      {formatAxisCount(tick.value)}
                    </text>
                  </g>
                ))}
                {bars.map((bar) => (
                  <g key={bar.id}>
                    <rect
                      x={bar.x}
                      y={bar.y}
                      width={bar.width}
                      height={bar.height}
                      fill={bar.valid ? "#0969da" : "#d4a72c"}
                    />
                    <text x={bar.x + bar.width / 2} y={bar.y - 4} textAnchor="middle" fontSize="11" fill="#1f2328">
                      {bar.clients === null ? "none" : formatAxisCount(bar.clients)}
                    </text>
                    <text
                      x={bar.x + bar.width / 2}
                      y={height - bottom + 16}
                      textAnchor="middle"
                      fontSize="11"
                      fill="#59636e"
                    >
                      {bar.build}
                    </text>
                  </g>
                ))}
                <text x={(left + width - right) / 2} y={height - 8} textAnchor="middle" fontSize="12" fill="#1f2328">
                  build
                </text>
              </svg>
              <figcaption className="muted small">
                Clients held while meeting the SLOs, per saved build; amber bars are estimates marked invalid.
              </figcaption>
            </figure>
          </section>
          <DataTable
            caption="Saved estimates, oldest first"
            columns={["Build", { label: "Holds", numeric: true }, "Change", "Saved", "Report"]}
          >
            {estimates.map((estimate) => (
              <tr key={estimate.id} data-testid="estimate-row" data-build={estimate.build}>
                <th scope="row">{estimate.build}</th>
                <td className="num">
                  {estimate.clients === null ? "—" : `${formatInteger(estimate.clients)} clients`}
                  {!estimate.valid && <span className="badge warn"> invalid</span>}
                </td>
                <td>{estimate.change ?? <span className="muted">—</span>}</td>
                <td>{formatDateTime(estimate.createdAt)}</td>
                <td>
                  <Link href={`/runs/${estimate.runId}/report`}>
                    Report<span className="sr-only"> of build {estimate.build}</span>
                  </Link>
                </td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
    </>
  );
}
