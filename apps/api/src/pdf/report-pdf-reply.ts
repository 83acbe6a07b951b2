import type { FastifyReply } from "fastify";
import type { ReaderPlace } from "@throng/protocol/display-format";
import type { RunReport, RunView } from "@throng/protocol/run";
import type { LatencyDistribution } from "@throng/protocol/latency-distribution";
import type { PdfRenderer } from "./pdf-renderer";
import { reportHtml } from "./report-html";

/** "lobby-soak-2026-11-26.pdf": the plan's name made safe and the day the run started (UTC). */
export function pdfFileName(run: Pick<RunView, "planName" | "startedAt" | "createdAt">): string {
  const slug =
    run.planName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "run";
  return `${slug}-${(run.startedAt ?? run.createdAt).slice(0, 10)}.pdf`;
}

/** Prints the report for its reader (their locale and zone) and answers it as a PDF download; the renderer's own errors (503, 504) pass through. */
export async function sendReportPdf(
  reply: FastifyReply,
  pdf: PdfRenderer,
  report: RunReport,
  reader: ReaderPlace = {},
  distributions: readonly { name: string; distribution: LatencyDistribution }[] = [],
) {
  const bytes = await pdf.pdf(reportHtml(report, reader, distributions));
  return reply
    .type("application/pdf")
    .header("content-disposition", `attachment; filename="${pdfFileName(report.run)}"`)
    .header("cache-control", "private, no-store")
    .send(bytes);
}
