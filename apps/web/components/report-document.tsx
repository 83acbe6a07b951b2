"use client";

import type { ReactNode } from "react";
import type { AgentView } from "@throng/protocol/api";
import type { RunReport } from "@throng/protocol/run";
import { formatDateTime } from "../lib/format";
import { reportSentence } from "../lib/report-summary";
import { runTimes } from "@throng/protocol/report-headline";
import { chartSpan } from "../lib/run-timing";
import { statusTone } from "../lib/verdict";
import { CapacityEvidence } from "./capacity-evidence";
import { ErrorSamples } from "./error-samples";
import { KcpCharts } from "./kcp-charts";
import { ReportCohorts } from "./report-cohorts";
import { ChartZoomProvider, type ChartZoom } from "./chart-zoom";
import { ReportPlan } from "./report-plan";
import { ERROR_SAMPLES_PER_KIND } from "@throng/protocol/error-samples";
import { ReportVerdicts } from "./report-verdicts";
import { RunAgents } from "./run-agents";
import { RunBreakdown } from "./run-breakdown";
import { RunCharts, useRunMarkers } from "./run-charts";
import { RunSummary } from "./run-summary";
import { RunNoteText, RunTags } from "./run-tags";
import { ServerCharts } from "./server-charts";
import { StatusBadge } from "./status-badge";

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
        <RunCharts
          points={series}
          span={chartSpan(run)}
          events={run.events}
          agents={agents}
          scenario={run.spec.scenario.kind}
          slos={run.spec.slos}
          note={run.note}
        />
        {report.errorSamples && (
          <ErrorSamples
            samples={report.errorSamples}
            perKind={ERROR_SAMPLES_PER_KIND}
            hostname={(id) => names.get(id) ?? id.slice(0, 8)}
            counted={run.summary?.errorsByKind}
          />
        )}
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
