// The report, export, share-link, comparison and saved-estimate calls. Kept apart from lib/shared/api.ts so the
// dashboard's own calls and these grow without stepping on each other.
import { RunReport } from "@throng/protocol/run";
import {
  EstimateView,
  RunComparison,
  ShareLinkCreated,
  ShareLinkView,
  TargetView,
  type SaveEstimate,
} from "@throng/protocol/report";
import { RunRangeSummary } from "@throng/protocol/run-range";
import { LatencyDistribution } from "@throng/protocol/latency-distribution";
import { apiRequest, listOf } from "./api-client";
import { distributionQuery, type ViewRange } from "../charts/view-range";

const path = (...parts: string[]) => `/api/${parts.map(encodeURIComponent).join("/")}`;

/** The browser's locale and time zone, so the API prints the PDF's numbers and dates as this page shows them. */
function readerQuery(): string {
  const { locale, timeZone } = Intl.DateTimeFormat().resolvedOptions();
  return new URLSearchParams({ locale, tz: timeZone }).toString();
}

export const reportApi = {
  report: (runId: string, signal?: AbortSignal) =>
    apiRequest("GET", path("runs", runId, "report"), RunReport, undefined, signal),
  /** No session needed: the token is the permission. */
  publicReport: (token: string, signal?: AbortSignal) =>
    apiRequest("GET", path("public", "reports", token), RunReport, undefined, signal),
  /** The shared run's latency distribution over the run or a range: the run page's, through the link. */
  publicDistribution: (token: string, metric: string, range: ViewRange | null, signal?: AbortSignal) => {
    const query = distributionQuery(metric, range);
    return apiRequest(
      "GET",
      `${path("public", "reports", token)}/distribution?${query}`,
      LatencyDistribution,
      undefined,
      signal,
    );
  },
  /** The shared run's summary over a zoomed range, with the link's token as the permission. */
  publicRangeSummary: (token: string, range: { from: number; to: number }, signal?: AbortSignal) =>
    apiRequest(
      "GET",
      `${path("public", "reports", token)}/summary?from=${range.from}&to=${range.to}`,
      RunRangeSummary,
      undefined,
      signal,
    ),
  jsonUrl: (runId: string) => path("runs", runId, "report"),
  csvUrl: (runId: string) => path("runs", runId, "series.csv"),
  /** The error samples as CSV (GET /api/runs/:id/errors.csv). */
  errorsCsvUrl: (runId: string) => path("runs", runId, "errors.csv"),
  /** Printed by the API in Chromium; the shared report's needs no session. */
  pdfUrl: (runId: string) => `${path("runs", runId)}/report.pdf?${readerQuery()}`,
  publicPdfUrl: (token: string) => `${path("public", "reports", token)}/report.pdf?${readerQuery()}`,

  createShareLink: (runId: string, expiresInDays?: number) =>
    apiRequest(
      "POST",
      path("runs", runId, "share-links"),
      ShareLinkCreated,
      expiresInDays === undefined ? {} : { expiresInDays },
    ),
  shareLinks: (runId: string, signal?: AbortSignal) =>
    apiRequest("GET", path("runs", runId, "share-links"), listOf("links", ShareLinkView), undefined, signal),
  revokeShareLink: (linkId: string) => apiRequest<void>("DELETE", path("share-links", linkId), null),

  compare: (runIds: readonly string[], signal?: AbortSignal) =>
    apiRequest(
      "GET",
      `/api/runs/compare?ids=${runIds.map(encodeURIComponent).join(",")}`,
      RunComparison,
      undefined,
      signal,
    ),

  saveEstimate: (runId: string, body: SaveEstimate) =>
    apiRequest("POST", path("runs", runId, "estimates"), EstimateView, body),
  targets: (signal?: AbortSignal) =>
    apiRequest("GET", "/api/targets", listOf("targets", TargetView), undefined, signal),
  targetEstimates: (name: string, signal?: AbortSignal) =>
    apiRequest("GET", path("targets", name, "estimates"), listOf("estimates", EstimateView), undefined, signal),
};
