"use client";

import type { RunView } from "@throng/protocol/run";
import { formatInteger, formatMs } from "../../lib/shared/format";
import { plannedSessionSteps, sessionBreakdown, sessionStepRows } from "@throng/protocol/session-breakdown";
import { scriptCounterRows, scriptMetricRows } from "../../lib/runs/run-breakdown";
import { DataTable, numeric } from "../ui/data-table";

const PERCENTILES = numeric("p50", "p90", "p99", "max");

/**
 * Per step and per metric (issue 28 §1): the clients' session (its time and its failures by cause) and each of a
 * script's named metrics, slowest first, from the ended run's summary. Nothing for a run without either.
 */
export function RunBreakdown({ run }: { run: RunView }) {
  const { summary } = run;
  if (!summary) return null;
  // A login storm's `login: true` is two session steps (send the login, expect its answer).
  const plannedSteps = plannedSessionSteps(run.spec.scenario);
  const session = sessionBreakdown(plannedSteps.length, summary);
  const stepRows = sessionStepRows(plannedSteps, summary);
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
            caption="The clients' session: each step's time and failures by cause, then the session as a whole"
            columns={["step", { label: "completed", numeric: true }, ...PERCENTILES, "failures by cause"]}
            testId="session-table"
          >
            {stepRows.map((row) => (
              <tr key={row.step} data-testid="session-step-row">
                <th scope="row">
                  <span className="breakdown-step">{row.step}</span>{" "}
                  <code className="breakdown-words">{row.words}</code>
                </th>
                <td className="num">{formatInteger(row.time.count)}</td>
                <td className="num">{formatMs(row.time.p50Ms)}</td>
                <td className="num">{formatMs(row.time.p90Ms)}</td>
                <td className="num">{formatMs(row.time.p99Ms)}</td>
                <td className="num">{formatMs(row.time.maxMs)}</td>
                <td>
                  <Failures failures={row.failures} />
                </td>
              </tr>
            ))}
            <tr data-testid="session-row">
              <th scope="row">Whole session</th>
              <td className="num">{session.time ? formatInteger(session.time.count) : "not timed"}</td>
              <td className="num">{formatMs(session.time?.p50Ms)}</td>
              <td className="num">{formatMs(session.time?.p90Ms)}</td>
              <td className="num">{formatMs(session.time?.p99Ms)}</td>
              <td className="num">{formatMs(session.time?.maxMs)}</td>
              <td>
                <Failures failures={session.failures} />
              </td>
            </tr>
          </DataTable>
          <p className="muted small">
            {stepRows.length > 0
              ? "A step's time: an expect step's from the send before it to the reply it waited for, an http step's from its request to the answer, a send's to its send. The whole session's runs from its first step to its last (logins of a login storm)."
              : "Times are the session's whole, first step to last (logins of a login storm): this run's agents did not time each step."}
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

/** A row's failures by cause, most first, in words; "none" without any. */
function Failures({ failures }: { failures: readonly { kind: string; words: string; count: number }[] }) {
  if (failures.length === 0) return <>none</>;
  return (
    <>
      {failures.map((failure) => (
        <span key={failure.kind} className="breakdown-cause" title={failure.kind}>
          {formatInteger(failure.count)} × {failure.words}
        </span>
      ))}
    </>
  );
}
