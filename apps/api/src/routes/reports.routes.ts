import type { FastifyReply } from "fastify";
import type { Actor } from "@throng/core/orgs/permissions";
import { IdParams } from "@throng/protocol/api";
import { RunReport } from "@throng/protocol/run";
import { RunRangeQuery, RunRangeSummary } from "@throng/protocol/run-range";
import { CompareQuery, ReportPdfQuery, RunComparison } from "@throng/protocol/report";
import { createCallerLimits } from "../http/rate-limit";
import { sendReportPdf } from "../pdf/report-pdf-reply";
import type { ApiDeps } from "../services";
import type { ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

/** An export answered as a CSV file the browser saves under `filename`. */
function sendCsv(reply: FastifyReply, filename: string, csv: string): FastifyReply {
  return reply
    .type("text/csv; charset=utf-8")
    .header("content-disposition", `attachment; filename="${filename}"`)
    .send(csv);
}

/** What a run's CSV export declares: its summary, the file name the browser saves it under, and the read that writes it. */
interface CsvExportSpec {
  summary: string;
  filename: (runId: string) => string;
  read: (actor: Actor, runId: string) => Promise<string>;
}

/** A run's report and its exports (CSV, PDF), its summary over a range of seconds, and runs compared. */
export async function reportRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, reports } = deps;
  const member = memberRoutes(app, resolveIdentity);
  const limitCaller = createCallerLimits(deps);
  app.addHook("onClose", () => deps.pdf.close()); // the one Chromium goes with the app
  /** A run's export as a CSV file, counted against the caller's exports per minute like every export. */
  const csvExport = (url: `/api/runs/:id/${string}`, { summary, filename, read }: CsvExportSpec) =>
    member.get(url, "run.read", {
      summary,
      schema: { params: IdParams },
      produces: "text/csv",
      errors: [429],
      handler: async ({ actor, caller, request, reply }) => {
        await limitCaller(caller, reply, "export");
        const { id } = request.params;
        return sendCsv(reply, filename(id), await read(actor, id));
      },
    });

  member.get("/api/runs/:id/report", "run.read", {
    summary:
      "A run's report: the run with verdicts and capacity, and its series (an export: 429 with Retry-After past the caller's exports per minute)",
    schema: { params: IdParams, response: { 200: RunReport } },
    errors: [429],
    handler: async ({ actor, caller, request, reply }) => {
      await limitCaller(caller, reply, "export");
      return reports.report(actor, request.params.id);
    },
  });

  csvExport("/api/runs/:id/errors.csv", {
    summary:
      "The run's error samples as CSV: kind, message, when, client, agent, bytes as hex (an export: 429 with Retry-After past the caller's exports per minute)",
    filename: (id) => `run-${id}-errors.csv`,
    read: reports.errorsCsv,
  });

  member.get("/api/runs/:id/summary", "run.read", {
    summary:
      "The run's summary over a range of its seconds (from, to: whole seconds since its start; to excluded), merged from the stored per-second histograms",
    schema: { params: IdParams, querystring: RunRangeQuery, response: { 200: RunRangeSummary } },
    handler: ({ actor, request }) => reports.rangeSummary(actor, request.params.id, request.query),
  });

  csvExport("/api/runs/:id/series.csv", {
    summary: "The per-second series as CSV (an export: 429 with Retry-After past the caller's exports per minute)",
    filename: (id) => `run-${id}.csv`,
    read: reports.csv,
  });

  member.get("/api/runs/:id/report.pdf", "run.read", {
    summary:
      "The report printed to PDF by headless Chromium (an export: 429 past the caller's exports per minute; 503 when the API has no Chromium)",
    schema: { params: IdParams, querystring: ReportPdfQuery },
    produces: "application/pdf",
    errors: [429, 503, 504],
    handler: async ({ actor, caller, request, reply }) => {
      const reader = request.query;
      await limitCaller(caller, reply, "export");
      const report = await reports.report(actor, request.params.id);
      return sendReportPdf(
        reply,
        deps.pdf,
        report,
        { locale: reader.locale, timeZone: reader.tz },
        await deps.runs.reportDistributions(actor, report.run),
      );
    },
  });

  member.get("/api/runs/compare", "run.read", {
    summary: "Runs side by side with deltas against the first (404 when one is not in the organisation)",
    schema: { querystring: CompareQuery, response: { 200: RunComparison } },
    errors: [404],
    handler: ({ actor, request }) => reports.compare(actor, request.query.ids),
  });
}
