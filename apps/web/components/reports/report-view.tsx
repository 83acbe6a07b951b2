"use client";

import Link from "next/link";
import { Suspense, useMemo } from "react";
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
      <a
        className="button"
        href={reportApi.jsonUrl(run.id)}
        download={exportFileName(run, "json")}
        data-testid="export-json"
      >
        Export JSON
      </a>
      <a
        className="button"
        href={reportApi.csvUrl(run.id)}
        download={exportFileName(run, "csv")}
        data-testid="export-csv"
      >
        Export CSV
      </a>
      {(report.data.errorSamples?.length ?? 0) > 0 && (
        <a
          className="button"
          href={reportApi.errorsCsvUrl(run.id)}
          download={exportFileName(run, "csv").replace(/\.csv$/, "-errors.csv")}
          data-testid="export-errors-csv"
        >
          Export errors CSV
        </a>
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
