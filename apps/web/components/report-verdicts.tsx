import type { RunVerdict } from "@throng/protocol/report";
import { sloRows } from "../lib/report-summary";

/** Each SLO's verdict over the whole run, and how many of its seconds broke it. */
export function ReportVerdicts({ verdict }: { verdict: RunVerdict | null | undefined }) {
  const rows = sloRows(verdict);
  return (
    <section className="panel" aria-labelledby="verdicts-title" data-testid="report-verdicts">
      <h2 id="verdicts-title">
        SLO verdicts{" "}
        {verdict && rows.length > 0 && (
          <span className={`badge ${verdict.passed ? "ok" : "bad"}`} data-testid="report-verdict" data-passed={verdict.passed}>
            {verdict.passed ? "passed" : "failed"}
          </span>
        )}
      </h2>
      {rows.length === 0 ? (
        <p className="muted">The plan sets no SLOs, so nothing was judged. Add SLOs to the plan (e.g. round trip p99 below 50 ms) to get a pass or fail.</p>
      ) : (
        <div className="table-wrap">
          <table className="data">
            <caption className="sr-only">SLO verdicts</caption>
            <thead>
              <tr>
                <th scope="col">SLO</th>
                <th scope="col">Threshold</th>
                <th scope="col" className="num">Measured</th>
                <th scope="col">Verdict</th>
                <th scope="col">Seconds</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.metric} data-testid="slo-row" data-metric={row.metric} data-passed={row.passed}>
                  <th scope="row">{row.name}</th>
                  <td>{row.threshold}</td>
                  <td className="num">{row.measured}</td>
                  <td>
                    <span className={`badge ${row.passed ? "ok" : "bad"}`}>{row.passed ? "met" : "broken"}</span>
                  </td>
                  <td>{row.seconds}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
