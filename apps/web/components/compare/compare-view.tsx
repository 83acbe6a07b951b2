"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useApiQuery } from "../../hooks/use-api-query";
import { api } from "../../lib/shared/api";
import { compareHref, compareRows, DELTA_WORDS, protocolWord, sloRows } from "../../lib/compare/compare-table";
import { CompareCharts } from "./compare-charts";
import { DataTable, type DataColumn } from "../ui/data-table";
import { formatDateTime } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { reportApi } from "../../lib/shared/report-api";
import { isTerminal } from "../../lib/shared/run-timing";
import type { RunComparison } from "@throng/protocol/report";
import { ErrorAlert } from "../ui/error-alert";

/** Pick runs (the first picked is the baseline), then read their figures side by side with the change against it. */
export function CompareView({ ids }: { ids: string[] }) {
  const router = useRouter();
  const [picked, setPicked] = useState<string[]>(ids);
  // The same GET /api/runs as Home's recent runs, so one cached answer serves both.
  const runs = useApiQuery(queryKeys.recentRuns, (signal) => api.listRuns(signal));
  const key = ids.join(",");
  const comparison = useApiQuery(queryKeys.comparison(ids), (signal) =>
    ids.length >= 2 ? reportApi.compare(ids, signal) : Promise.resolve(null),
  );
  const ended = (runs.data ?? []).filter((run) => isTerminal(run.status));
  const toggle = (id: string, on: boolean) =>
    setPicked((current) => (on ? [...current.filter((x) => x !== id), id] : current.filter((x) => x !== id)));

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Compare runs</h1>
          <p>
            Figures side by side; changes are against the first run picked, and one smaller than the runs&apos; own
            second-to-second spread reads &ldquo;within noise&rdquo;.
          </p>
        </div>
      </div>
      {ids.length >= 2 && (
        <section className="panel" aria-labelledby="compare-table-title" data-testid="compare-result" key={key}>
          <h2 id="compare-table-title">Side by side</h2>
          <ErrorAlert error={comparison.error} testId="compare-error" />
          {!comparison.data && !comparison.error && <p className="loading">Comparing…</p>}
          {comparison.data && (
            <DataTable
              caption="Run figures and changes against the first run"
              columns={compareColumns(comparison.data)}
              className="compare-table"
            >
              {compareRows(comparison.data).map((row) => (
                <tr key={row.key} data-testid="compare-row" data-figure={row.key}>
                  <th scope="row">{row.label}</th>
                  {row.cells.map((cell) => (
                    <td key={cell.runId} className="num">
                      {cell.value}
                      {cell.delta && (
                        <span
                          className={`delta ${cell.tone}`}
                          data-testid="compare-delta"
                          data-tone={cell.tone}
                          title={cell.note}
                        >
                          {" "}
                          {cell.delta}
                          {cell.tone === "noise" ? (
                            <span className="noise-word"> {DELTA_WORDS.noise}</span>
                          ) : (
                            <span className="sr-only"> ({DELTA_WORDS[cell.tone]})</span>
                          )}
                        </span>
                      )}
                    </td>
                  ))}
                </tr>
              ))}
              {sloRows(comparison.data).map((row) => (
                <tr key={row.key} data-testid="compare-slo-row" data-slo={row.key}>
                  <th scope="row">{row.label}</th>
                  {row.cells.map((cell) => (
                    <td key={cell.runId} className={`num slo-cell ${cell.status}`} data-status={cell.status}>
                      {cell.text}
                    </td>
                  ))}
                </tr>
              ))}
            </DataTable>
          )}
        </section>
      )}
      {comparison.data && (
        <section
          className="panel"
          aria-labelledby="compare-charts-title"
          data-testid="compare-charts"
          key={`charts-${key}`}
        >
          <h2 id="compare-charts-title">Over time</h2>
          <p className="muted small">Each run from its own start; hover a second to read every run at it.</p>
          <CompareCharts runs={comparison.data.runs} />
        </section>
      )}
      <section className="panel" aria-labelledby="compare-pick-title">
        <h2 id="compare-pick-title">Runs to compare</h2>
        <ErrorAlert error={runs.error} />
        {runs.data && ended.length < 2 && (
          <p className="empty" data-testid="compare-empty">
            <strong>Not enough runs yet.</strong>Run a plan at least twice (Plans → Start run); finished runs appear
            here to compare.
          </p>
        )}
        {ended.length >= 2 && (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              router.push(compareHref(picked));
            }}
          >
            <fieldset className="compare-pick">
              <legend className="muted">Tick two or more; the first ticked is the baseline.</legend>
              {ended.map((run) => (
                <label key={run.id} className="check-row">
                  <input
                    type="checkbox"
                    checked={picked.includes(run.id)}
                    onChange={(event) => toggle(run.id, event.target.checked)}
                    data-testid="compare-pick"
                    data-run-id={run.id}
                  />
                  {picked.includes(run.id) && <span className="badge idle">{picked.indexOf(run.id) + 1}</span>}
                  <span>
                    {run.planName}{" "}
                    <span className="muted small">
                      · {formatDateTime(run.createdAt)} · {run.status}
                    </span>
                    {run.tags.length > 0 && (
                      <span className="muted small" data-testid="compare-pick-tags">
                        {" "}
                        · tagged {run.tags.join(", ")}
                      </span>
                    )}
                  </span>
                </label>
              ))}
            </fieldset>
            <div className="form-actions">
              <button
                className="button primary"
                type="submit"
                disabled={picked.length < 2}
                data-testid="compare-submit"
              >
                Compare {picked.length >= 2 ? `${picked.length} runs` : ""}
              </button>
              {picked.length < 2 && <span className="muted small">Pick at least two runs.</span>}
            </div>
          </form>
        )}
      </section>
    </>
  );
}

/** "Figure", then one numeric column per run headed by its plan (linking to its report), when it ran, its protocol, and which is the baseline. */
function compareColumns(comparison: RunComparison): DataColumn[] {
  return [
    "Figure",
    ...comparison.runs.map((run, index) => ({
      key: run.id,
      numeric: true,
      label: (
        <>
          <Link href={`/runs/${run.id}/report`}>{run.planName}</Link>
          <div className="muted small">
            {formatDateTime(run.createdAt)}
            {run.protocol && <span data-testid="compare-protocol"> · {protocolWord(run.protocol)}</span>}
            {index === 0 ? " · baseline" : ""}
          </div>
        </>
      ),
    })),
  ];
}
