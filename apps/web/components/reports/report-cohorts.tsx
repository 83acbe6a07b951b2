import { ABOVE_STREAM_NOTE, cohortSections, type CohortReportFormat } from "@throng/protocol/cohort-report";
import type { RunView } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { formatDecimal, formatInteger, formatMs } from "../../lib/shared/format";
import { sloRows } from "../../lib/reports/report-summary";
import { formatRatioPercent } from "../../lib/runs/scenario-view";
import { SloTable } from "./report-verdicts";
import { CohortLatencyChart } from "../runs/run-cohort-charts";

const FORMAT: CohortReportFormat = {
  integer: formatInteger,
  ms: formatMs,
  percent: formatRatioPercent,
  decimal: formatDecimal,
};

/**
 * The report's network cohorts (docs/networks.md): the chart with a line per cohort, then a section per cohort with
 * its network as planned, how it was applied, its own figures and the verdicts of the SLOs naming it.
 */
export function ReportCohorts({ run, series }: { run: RunView; series: readonly SeriesPoint[] }) {
  const sections = cohortSections(run, FORMAT);
  if (sections.length === 0) return null;
  return (
    <>
      {series.length > 0 && (
        <section className="panel" aria-label="Network cohorts over time">
          <CohortLatencyChart run={run} points={series} />
        </section>
      )}
      {sections.map((section) => {
        const titleId = `report-cohort-${section.name}-title`;
        const slos = sloRows({ passed: true, reasons: [], warnings: [], slos: section.slos });
        return (
          <section
            key={section.name}
            className="panel"
            aria-labelledby={titleId}
            data-testid="report-cohort"
            data-cohort={section.name}
          >
            <h2 id={titleId}>Network cohort {section.name}</h2>
            <p className="cohort-conditions" data-testid="report-cohort-conditions">
              {section.size}: {section.conditions}
              {section.applied && <>; applied {section.applied}</>}
              {section.aboveStream && (
                <>
                  {" "}
                  <span className="badge warn">{ABOVE_STREAM_NOTE}</span>
                </>
              )}
            </p>
            {section.figures.length === 0 ? (
              <p className="muted">Nothing was measured of this cohort&apos;s clients.</p>
            ) : (
              <dl className="summary-grid">
                {section.figures.map((figure) => (
                  <div key={figure.id}>
                    <dt>{figure.label}</dt>
                    <dd data-testid={`report-cohort-${figure.id}`}>{figure.value}</dd>
                  </div>
                ))}
              </dl>
            )}
            {slos.length > 0 && (
              <SloTable caption={`SLO verdicts of cohort ${section.name}`} rows={slos} rowTestId="report-cohort-slo" />
            )}
          </section>
        );
      })}
    </>
  );
}
