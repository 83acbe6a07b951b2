"use client";

import type { RunView } from "@throng/protocol/run";
import { formatInteger, formatMs } from "../../lib/shared/format";
import { scriptCounterRows, scriptMetricRows, sessionBreakdown } from "../../lib/runs/run-breakdown";
import { DataTable } from "../ui/data-table";

const PERCENTILES = [
  { label: "p50", numeric: true },
  { label: "p90", numeric: true },
  { label: "p99", numeric: true },
  { label: "max", numeric: true },
];

/**
 * Per step and per metric (issue 28 §1): the clients' session (its time and its failures by cause) and each of a
 * script's named metrics, slowest first, from the ended run's summary. Nothing for a run without either.
 */
export function RunBreakdown({ run }: { run: RunView }) {
  const { summary } = run;
  if (!summary) return null;
  const scenario = run.spec.scenario as { kind: string; session?: readonly unknown[]; login?: boolean };
  // A login storm's `login: true` is two session steps (send the login, expect its answer).
  const steps = scenario.session?.length ?? (scenario.kind === "login-storm" && scenario.login ? 2 : 0);
  const session = sessionBreakdown(steps, summary);
  const timings = scriptMetricRows(summary);
  const counters = scriptCounterRows(summary);
  if (!session && timings.length === 0 && counters.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="breakdown-title" data-testid="run-breakdown">
      <h2 id="breakdown-title">Per step and per metric</h2>
      {session && (
        <>
          <h3 className="distribution-heading">
            Session ({session.steps} {session.steps === 1 ? "step" : "steps"})
          </h3>
          <DataTable
            caption="The clients' session: its time and failures by cause"
            columns={["", { label: "completed", numeric: true }, ...PERCENTILES, "failures by cause"]}
            testId="session-table"
          >
            <tr data-testid="session-row">
              <th scope="row">Whole session</th>
              <td className="num">{session.time ? formatInteger(session.time.count) : "not timed"}</td>
              <td className="num">{formatMs(session.time?.p50Ms)}</td>
              <td className="num">{formatMs(session.time?.p90Ms)}</td>
              <td className="num">{formatMs(session.time?.p99Ms)}</td>
              <td className="num">{formatMs(session.time?.maxMs)}</td>
              <td>
                {session.failures.length === 0
                  ? "none"
                  : session.failures.map((failure) => (
                      <span key={failure.kind} className="breakdown-cause" title={failure.kind}>
                        {formatInteger(failure.count)} × {failure.words}
                      </span>
                    ))}
              </td>
            </tr>
          </DataTable>
          <p className="muted small">
            Times are the session&apos;s whole, first step to last (logins of a login storm); the agent does not time
            each step on its own yet.
          </p>
        </>
      )}
      {timings.length > 0 && (
        <>
          <h3 className="distribution-heading">Script timings (slowest p99 first)</h3>
          <DataTable
            caption="The script's named timings"
            columns={["metric", { label: "count", numeric: true }, ...PERCENTILES]}
            testId="script-metric-table"
          >
            {timings.map((row) => (
              <tr key={row.name} data-testid="script-metric-row">
                <th scope="row">
                  <code>{row.name}</code>
                </th>
                <td className="num">{formatInteger(row.count)}</td>
                <td className="num">{formatMs(row.p50Ms)}</td>
                <td className="num">{formatMs(row.p90Ms)}</td>
                <td className="num">{formatMs(row.p99Ms)}</td>
                <td className="num">{formatMs(row.maxMs)}</td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
      {counters.length > 0 && (
        <>
          <h3 className="distribution-heading">Script counters</h3>
          <DataTable
            caption="The script's named counters"
            columns={["counter", { label: "total", numeric: true }]}
            testId="script-counter-table"
          >
            {counters.map((row) => (
              <tr key={row.name}>
                <th scope="row">
                  <code>{row.name}</code>
                </th>
                <td className="num">{formatInteger(row.total)}</td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
    </section>
  );
}
