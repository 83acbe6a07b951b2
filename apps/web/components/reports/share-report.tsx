"use client";

import { Suspense, useMemo } from "react";
import { useApiQuery } from "../../hooks/use-api-query";
import { queryKeys } from "../../lib/shared/query-keys";
import { reportApi } from "../../lib/shared/report-api";
import { exportFileName } from "../../lib/reports/report-summary";
import { PdfDownloadButton } from "./pdf-download-button";
import { sharedRangeSummary } from "../charts/chart-zoom";
import { distributionMetrics } from "../../lib/runs/latency-distribution";
import { LatencyDistribution } from "../runs/latency-distribution";
import { ReportDocument } from "./report-document";

/**
 * The report behind a public share link. No session and no redirect to sign-in: the token is the only
 * permission, and a revoked or expired link shows the API's own words.
 */
export function ShareReport({ token }: { token: string }) {
  const { data: report, error } = useApiQuery(queryKeys.sharedReport(token), (signal) =>
    reportApi.publicReport(token, signal),
  );
  const rangeSummary = useMemo(() => sharedRangeSummary(token), [token]);
  if (error && !report) {
    return (
      <section className="panel" aria-labelledby="share-refused-title" data-testid="share-refused">
        <h1 id="share-refused-title">This report is not available</h1>
        <p className="alert" role="alert" data-testid="share-refused-message">
          {error}
        </p>
      </section>
    );
  }
  if (!report) return <p className="loading">Loading the shared report…</p>;
  return (
    <ReportDocument
      report={report}
      rangeSummary={rangeSummary}
      distribution={
        <Suspense fallback={null}>
          <LatencyDistribution
            runId={report.run.id}
            metrics={distributionMetrics(report.run.summary ? [report.run.summary] : report.series)}
            live={false}
            shareToken={token}
          />
        </Suspense>
      }
      actions={
        <PdfDownloadButton url={reportApi.publicPdfUrl(token)} fallbackName={exportFileName(report.run, "pdf")} />
      }
    />
  );
}
