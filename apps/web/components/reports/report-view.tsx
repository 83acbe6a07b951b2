"use client";

import Link from "next/link";
import { type ReactNode, Suspense, useMemo } from "react";
import { useApiQuery } from "../../hooks/use-api-query";
import { api } from "../../lib/shared/api";
import { queryKeys } from "../../lib/shared/query-keys";
import { reportApi } from "../../lib/shared/report-api";
import { exportFileName } from "../../lib/reports/report-summary";
import { distributionMetrics } from "../../lib/runs/latency-distribution";
import { LatencyDistribution } from "../runs/latency-distribution";
import { can } from "../../lib/shared/settings-permissions";
import { runRangeSummary } from "../charts/chart-zoom";
import { ReportDocument } from "./report-document";
import { PdfDownloadButton } from "./pdf-download-button";
import { ReportEstimateForm } from "./report-estimate-form";
import { RunBaseline } from "../runs/run-baseline";
import { useMe } from "../shell/session-gate";
import { ShareLinks } from "./share-links";
import { ErrorAlert } from "../ui/error-alert";

/** A download of the report's data, saved under `file`. */
function ExportLink({
  href,
  file,
  testId,
  children,
}: {
  href: string;
  file: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <a className="button" href={href} download={file} data-testid={testId}>
      {children}
    </a>
  );
}

/** The signed-in report: the document, its exports and PDF, share links and saving the estimate. */
export function ReportView({ runId }: { runId: string }) {
  const role = useMe().role;
  const report = useApiQuery(queryKeys.runReport(runId), (signal) => reportApi.report(runId, signal));
  const fleet = useApiQuery(queryKeys.agents, (signal) => api.listAgents(signal));
  const rangeSummary = useMemo(() => runRangeSummary(runId), [runId]);

  if (!report.data) {
    return report.error ? (
      <p className="alert" role="alert" data-testid="report-error">
        {report.error}
      </p>
    ) : (
      <p className="loading">Loading report…</p>
    );
  }
  const { run } = report.data;
  const actions = (
    <>
      <ExportLink href={reportApi.jsonUrl(run.id)} file={exportFileName(run, "json")} testId="export-json">
        Export JSON
      </ExportLink>
      <ExportLink href={reportApi.csvUrl(run.id)} file={exportFileName(run, "csv")} testId="export-csv">
        Export CSV
      </ExportLink>
      {(report.data.errorSamples?.length ?? 0) > 0 && (
        <ExportLink
          href={reportApi.errorsCsvUrl(run.id)}
          file={exportFileName(run, "csv").replace(/\.csv$/, "-errors.csv")}
          testId="export-errors-csv"
        >
          Export errors CSV
        </ExportLink>
      )}
      <PdfDownloadButton url={reportApi.pdfUrl(run.id)} fallbackName={exportFileName(run, "pdf")} />
      <Link className="button" href={`/compare?ids=${run.id}`}>
        Compare…
      </Link>
    </>
  );
  const crumbs = (
    <p className="muted small no-print">
      <Link href="/runs">Runs</Link> / <Link href={`/runs/${run.id}`}>{run.planName}</Link> / Report
    </p>
  );
  return (
    <>
      <ErrorAlert error={report.error} />
      <ReportDocument
        report={report.data}
        agents={fleet.data ?? []}
        crumbs={crumbs}
        actions={actions}
        rangeSummary={rangeSummary}
        distribution={
          <Suspense fallback={null}>
            <LatencyDistribution
              runId={run.id}
              metrics={distributionMetrics(run.summary ? [run.summary] : report.data.series)}
              live={false}
            />
          </Suspense>
        }
      />
      <RunBaseline run={run} points={report.data.series} />
      {run.capacity && can(role, "run.start") && <ReportEstimateForm runId={run.id} />}
      {can(role, "share.manage") && <ShareLinks runId={run.id} />}
    </>
  );
}
