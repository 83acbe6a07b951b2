"use client";

import type { ReactNode } from "react";
import type { AgentView } from "@throng/protocol/api";
import type { RunReport } from "@throng/protocol/run";
import { formatDateTime } from "../../lib/shared/format";
import { reportSentence } from "../../lib/reports/report-summary";
import { runTimes } from "@throng/protocol/report-headline";
import { chartSpan, runChartInputs } from "../../lib/shared/run-timing";
import { statusTone } from "../../lib/shared/verdict";
import { CapacityEvidence } from "./capacity-evidence";
import { ErrorSamples } from "../runs/error-samples";
import { RoomsTable } from "../runs/rooms-table";
import { KcpCharts } from "../runs/kcp-charts";
import { ReportCohorts } from "./report-cohorts";
import { ChartZoomProvider, type ChartZoom } from "../charts/chart-zoom";
import { ReportPlan } from "./report-plan";
import { ERROR_SAMPLES_PER_KIND } from "@throng/protocol/error-samples";
import { ReportVerdicts } from "./report-verdicts";
import { RunAgents } from "../runs/run-agents";
import { RunBreakdown } from "../runs/run-breakdown";
import { RunCharts, useRunMarkers } from "../runs/run-charts";
import { RunSummary } from "../runs/run-summary";
import { RunNoteText, RunTags } from "../runs/run-tags";
import { ServerCharts } from "../runs/server-charts";
import { StatusBadge } from "../ui/status-badge";

interface ReportDocumentProps {
  report: RunReport;
  /** Fleet records for host names; the public page has none and shows agent ids. */
  agents?: readonly AgentView[];
  /** Above the title: breadcrumbs on the signed-in page, nothing on the shared one. */
  crumbs?: ReactNode;
  /** Exports, share links, save estimate: signed-in only, hidden when printing. */
  actions?: ReactNode;
  /** Where the zoomed range's summary comes from: the run's route, or the share link's. */
  rangeSummary: { load: ChartZoom["loadSummary"]; key: ChartZoom["summaryKey"] };
  /** Under the charts: the latency distribution, read through the run's route or the share link's. */
  distribution?: ReactNode;
}

/** The report of one run, read-only: the same on the signed-in page, the public share page and in the PDF. */
export function ReportDocument({
  report,
  agents = [],
  crumbs,
  actions,
  rangeSummary,
  distribution,
}: ReportDocumentProps) {
  const { run, series } = report;
  const names = new Map(agents.map((agent) => [agent.id, agent.hostname]));
  const markers = useRunMarkers(run.events, series, run.note, chartSpan(run), agents);
  return (
    <ChartZoomProvider startedAt={run.startedAt} loadSummary={rangeSummary.load} summaryKey={rangeSummary.key}>
      <article className="report" data-testid="report" aria-labelledby="report-title">
        <header className="panel report-head">
          {crumbs}
          <div className="page-head">
            <div>
              <h1 id="report-title">
                Report: {run.planName} <StatusBadge status={run.status} tone={statusTone(run)} testId="report-status" />
              </h1>
              <p className="muted small">
                Run <code>{run.id}</code> · <span data-testid="report-times">{runTimes(run, formatDateTime)}</span>
              </p>
            </div>
            {actions && <div className="head-actions no-print">{actions}</div>}
          </div>
          <p className="report-sentence" data-testid="report-sentence">
            {reportSentence(run)}
          </p>
          {/* The team's note and tags, as plain text (the same on the share page and in the PDF, so no links). */}
          <RunTags tags={run.tags} linked={false} testId="report-tags" />
          {run.note && <RunNoteText note={run.note} testId="report-note" />}
        </header>
        <ReportVerdicts run={run} />
        {run.capacity ? (
          <CapacityEvidence capacity={run.capacity} hostname={(id) => names.get(id) ?? id.slice(0, 8)} />
        ) : (
          run.spec.load.shape?.kind === "step-up" && (
            <section className="panel" data-testid="report-capacity-missing">
              <h2>Capacity estimate</h2>
              <p className="muted">
                This step-up run has no capacity estimate: it did not finish enough steps to judge one.
              </p>
            </section>
          )
        )}
        <RunSummary run={run} inReport />
        <RunBreakdown run={run} />
        <RunCharts points={series} agents={agents} {...runChartInputs(run)} />
        {report.errorSamples && (
          <ErrorSamples
            samples={report.errorSamples}
            perKind={ERROR_SAMPLES_PER_KIND}
            hostname={(id) => names.get(id) ?? id.slice(0, 8)}
            counted={run.summary?.errorsByKind}
          />
        )}
        {report.rooms && <RoomsTable rooms={report.rooms} />}
        {distribution}
        <ReportCohorts run={run} series={series} />
        {run.spec.target.protocol === "kcp" && (
          <KcpCharts points={series} summary={run.summary} span={chartSpan(run)} events={run.events} />
        )}
        {report.server && (
          <ServerCharts
            points={report.server.points}
            summary={report.server.summary}
            span={chartSpan(run)}
            markers={markers}
            agents={agents}
          />
        )}
        <RunAgents run={run} agents={agents} points={series} live={false} />
        <ReportPlan run={run} />
      </article>
    </ChartZoomProvider>
  );
}
