import type { RunView } from "@throng/protocol/run";
import { sloRows, unjudgedSloRows, type SloRow } from "../../lib/reports/report-summary";
import { reportReasons, verdictBadge } from "../../lib/shared/verdict";
import { DataTable, type DataColumn } from "../ui/data-table";

const SLO_COLUMNS: readonly DataColumn[] = [
  "SLO",
  "Threshold",
  { label: "Measured", numeric: true },
  "Verdict",
  "Seconds",
];

/**
 * The run's verdict (passed only when the load ran as planned and every SLO was met over enough data), why it is
 * not a pass, and each SLO's verdict over the whole run with how many of its seconds broke it.
 */
export function ReportVerdicts({ run }: { run: RunView }) {
  const { verdict } = run;
  const planned = run.spec.slos ?? [];
  const judged = sloRows(verdict);
  // A run that ended before it measured anything has a verdict without SLOs; the plan's SLOs were not judged, not absent.
  const rows = judged.length === 0 && planned.length > 0 ? unjudgedSloRows(planned) : judged;
  const badge = verdictBadge(verdict);
  const reasons = reportReasons(run);
  return (
    <section className="panel" aria-labelledby="verdicts-title" data-testid="report-verdicts">
      <h2 id="verdicts-title">
        Verdict{" "}
        {verdict && badge && (
          <span
            className={`badge ${badge.tone}`}
            data-testid="report-verdict"
            data-passed={verdict.passed}
            data-outcome={verdict.outcome ?? ""}
          >
            {badge.label}
          </span>
        )}
      </h2>
      {reasons.length > 0 && (
        <ul className="verdict-reasons" data-testid="verdict-reasons">
          {reasons.map((reason) => (
            <li key={reason}>{reason}</li>
          ))}
        </ul>
      )}
      {(verdict?.warnings ?? []).length > 0 && (
        <ul className="verdict-warnings muted" data-testid="verdict-warnings">
          {verdict!.warnings.map((warning) => (
            <li key={warning}>Note: {warning}</li>
          ))}
        </ul>
      )}
      <p className="muted small">
        A run passes only when its load ran as planned for its planned time and every SLO was met over enough data;
        aborted, short of its schedule, with lost agents or clients, or with an SLO that measured nothing is not a pass.
        A capacity search is judged by its estimate. Each verdict is explained in docs/verdicts.md.
      </p>
      {judged.length === 0 && planned.length > 0 && (
        <p className="muted" data-testid="slos-not-judged">
          The run ended before it measured a second, so none of the plan&apos;s{" "}
          {planned.length === 1 ? "SLO was" : `${planned.length} SLOs were`} judged.
        </p>
      )}
      {rows.length === 0 ? (
        <p className="muted">
          The plan sets no SLOs, so only its load was judged. Add SLOs to the plan (e.g. round trip p99 below 50 ms) to
          judge the server too.
        </p>
      ) : (
        <SloTable caption="SLO verdicts" rows={rows} rowTestId="slo-row" />
      )}
    </section>
  );
}

/** SLO verdicts as a table: each SLO's threshold, what was measured, its verdict and its seconds. */
export function SloTable({
  caption,
  rows,
  rowTestId,
}: {
  caption: string;
  rows: readonly SloRow[];
  rowTestId: string;
}) {
  return (
    <DataTable caption={caption} columns={SLO_COLUMNS}>
      {rows.map((row) => (
        <tr
          key={row.name}
          data-testid={rowTestId}
          data-metric={row.metric}
          data-passed={row.passed}
          data-status={row.status}
        >
          <th scope="row">{row.name}</th>
          <td>{row.threshold}</td>
          <td className="num">{row.measured}</td>
          <td>
            <span
              className={`badge ${row.passed ? "ok" : row.status === "no data" ? "warn" : row.status === "not judged" ? "idle" : "bad"}`}
            >
              {row.status}
            </span>
          </td>
          <td>{row.seconds}</td>
        </tr>
      ))}
    </DataTable>
  );
}
