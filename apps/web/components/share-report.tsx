"use client";

import { useEffect, useState } from "react";
import type { RunReport } from "@throng/protocol/run";
import { errorMessage } from "../lib/api-client";
import { reportApi } from "../lib/report-api";
import { exportFileName } from "../lib/report-summary";
import { PdfDownloadButton } from "./pdf-download-button";
import { ReportDocument } from "./report-document";

type Shared = { state: "loading" } | { state: "refused"; message: string } | { state: "ready"; report: RunReport };

/**
 * The report behind a public share link. No session and no redirect to sign-in: the token is the only
 * permission, and a revoked or expired link shows the API's own words.
 */
export function ShareReport({ token }: { token: string }) {
  const [shared, setShared] = useState<Shared>({ state: "loading" });

  useEffect(() => {
    const controller = new AbortController();
    reportApi
      .publicReport(token, controller.signal)
      .then((report) => setShared({ state: "ready", report }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setShared({ state: "refused", message: errorMessage(error) });
      });
    return () => controller.abort();
  }, [token]);

  if (shared.state === "loading") return <p className="loading">Loading the shared report…</p>;
  if (shared.state === "refused") {
    return (
      <section className="panel" aria-labelledby="share-refused-title" data-testid="share-refused">
        <h1 id="share-refused-title">This report is not available</h1>
        <p className="alert" role="alert" data-testid="share-refused-message">
          {shared.message}
        </p>
      </section>
    );
  }
  const { run } = shared.report;
  return <ReportDocument report={shared.report} actions={<PdfDownloadButton url={reportApi.publicPdfUrl(token)} fallbackName={exportFileName(run, "pdf")} />} />;
}
