"use client";

import { useMemo } from "react";
import type { RunView } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import {
  cohortColour,
  cohortLatencyRead,
  cohortLatencyLines,
  cohortNames,
  cohortThresholds,
  liveCohortRows,
} from "../../lib/runs/cohort-series";
import { formatTimeOfDay } from "../../lib/shared/format";
import { chartSpan } from "../../lib/shared/run-timing";
import { DataTable, type DataColumn } from "../ui/data-table";
import { SeriesChart } from "../charts/series-chart";

/** The latency chart of a run's network cohorts: a line per cohort and one for all its clients; nothing without cohorts. */
export function CohortLatencyChart({ run, points }: { run: RunView; points: readonly SeriesPoint[] }) {
  const planned = (run.spec.network ?? []).map((cohort) => cohort.name);
  const names = cohortNames(planned, points);
  const kind = run.spec.scenario.kind;
  const latency = useMemo(() => cohortLatencyRead(kind), [kind]);
  // Rebuilt only when a cohort appears, not every second.
  const key = names.join(",");
  const lines = useMemo(() => (latency ? cohortLatencyLines(key ? key.split(",") : [], latency) : []), [key, latency]);
  const sloKey = JSON.stringify(run.spec.slos ?? []);
  const thresholds = useMemo(() => (latency ? cohortThresholds(JSON.parse(sloKey), latency) : []), [sloKey, latency]);
  if (names.length === 0 || !latency) return null;
  return (
    <SeriesChart
      testId="chart-cohort-latency"
      title={`${latency.words} p99 by network cohort, beside all clients (dashed, cohorts included)`}
      lines={lines}
      points={points}
      span={chartSpan(run)}
      unit="ms"
      thresholds={thresholds}
    />
  );
}

const LIVE_COLUMNS = (latency: string, reach: boolean): DataColumn[] => [
  "Cohort",
  { label: "Clients", numeric: true, title: "The cohort's clients running this second" },
  { label: `${latency} p50`, numeric: true },
  { label: `${latency} p99`, numeric: true },
  { label: "Errors", numeric: true, title: "Errors of the cohort's clients this second" },
  ...(reach ? [{ label: "Reach", numeric: true, title: "Broadcasts received of those expected this second" }] : []),
];

/**
 * While the run runs: each cohort's latest second (clients, latency p50/p99, errors, reach for movement-sync) and
 * the per-cohort latency chart. Ended runs show the chart only; their cohort totals are in the summary.
 */
export function RunCohortFigures({
  run,
  points,
  live,
}: {
  run: RunView;
  points: readonly SeriesPoint[];
  live: boolean;
}) {
  const planned = (run.spec.network ?? []).map((cohort) => cohort.name);
  if (planned.length === 0) return null;
  const kind = run.spec.scenario.kind;
  const { t, rows } = liveCohortRows(cohortNames(planned, points), points, kind);
  const latency = kind === "movement-sync" ? "Broadcast" : "RTT";
  return (
    <section className="panel" aria-labelledby="cohorts-live-title" data-testid="run-cohort-figures">
      <h2 id="cohorts-live-title">{live ? "Network cohorts, live" : "Network cohorts over time"}</h2>
      {live && (
        <>
          <p className="live-note" data-testid="cohort-live-second">
            {t === null
              ? "Waiting for the cohorts' first measured second…"
              : `Each cohort's second at ${formatTimeOfDay(t)}, as its agents report it.`}
          </p>
          <DataTable
            caption="Each network cohort's latest second"
            columns={LIVE_COLUMNS(latency, kind === "movement-sync")}
            testId="cohort-live-table"
          >
            {rows.map((row, index) => (
              <tr key={row.name} data-testid="cohort-live-row" data-cohort={row.name}>
                <th scope="row">
                  <span className="swatch" style={{ background: cohortColour(index) }} aria-hidden="true" /> {row.name}
                </th>
                <td className="num">{row.clients}</td>
                <td className="num">{row.p50}</td>
                <td className="num">{row.p99}</td>
                <td className="num">{row.errors}</td>
                {kind === "movement-sync" && <td className="num">{row.reach}</td>}
              </tr>
            ))}
          </DataTable>
        </>
      )}
      <CohortLatencyChart run={run} points={points} />
    </section>
  );
}
