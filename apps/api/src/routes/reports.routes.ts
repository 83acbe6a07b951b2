import type { FastifyReply } from "fastify";
import { z } from "zod";
import { IdParams, TokenParams } from "@throng/protocol/api";
import { RunReport } from "@throng/protocol/run";
import { RunRangeQuery, RunRangeSummary } from "@throng/protocol/run-range";
import { DistributionQuery, LatencyDistribution } from "@throng/protocol/latency-distribution";
import {
  CompareQuery,
  CreateShareLink,
  EstimateView,
  ReportPdfQuery,
  RunComparison,
  SaveEstimate,
  ShareLinkCreated,
  ShareLinkView,
  TargetView,
} from "@throng/protocol/report";
import { createCallerLimits } from "../http/rate-limit";
import { sendReportPdf } from "../pdf/report-pdf-reply";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";

const NameParams = z.object({ name: z.string().min(1).max(100) });

/** An export answered as a CSV file the browser saves under `filename`. */
function sendCsv(reply: FastifyReply, filename: string, csv: string): FastifyReply {
  return reply
    .type("text/csv; charset=utf-8")
    .header("content-disposition", `attachment; filename="${filename}"`)
    .send(csv);
}

/** Reports, exports, comparisons, share links and saved capacity estimates. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the plugin lists its routes, each a few lines over one core call.
export async function reportRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, reports, estimates } = deps;
  const limitCaller = createCallerLimits(deps);
  app.addHook("onClose", () => deps.pdf.close()); // the one Chromium goes with the app

  app.get(
    "/api/runs/:id/report",
    {
      schema: { params: IdParams, response: { 200: RunReport } },
      config: {
        doc: {
          summary:
            "A run's report: the run with verdicts and capacity, and its series (an export: 429 with Retry-After past the caller's exports per minute)",
          access: "user",
          errors: [429],
          permission: "run.read",
        },
      },
    },
    async (request, reply) => {
      const { actor, caller } = await resolveIdentity(request);
      await limitCaller(caller, reply, "export");
      return reports.report(actor, request.params.id);
    },
  );

  app.get(
    "/api/runs/:id/errors.csv",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary:
            "The run's error samples as CSV: kind, message, when, client, agent, bytes as hex (an export: 429 with Retry-After past the caller's exports per minute)",
          access: "user",
          produces: "text/csv",
          errors: [429],
          permission: "run.read",
        },
      },
    },
    async (request, reply) => {
      const { actor, caller } = await resolveIdentity(request);
      await limitCaller(caller, reply, "export");
      const { id } = request.params;
      return sendCsv(reply, `run-${id}-errors.csv`, await reports.errorsCsv(actor, id));
    },
  );

  app.get(
    "/api/runs/:id/summary",
    {
      schema: { params: IdParams, querystring: RunRangeQuery, response: { 200: RunRangeSummary } },
      config: {
        doc: {
          summary:
            "The run's summary over a range of its seconds (from, to: whole seconds since its start; to excluded), merged from the stored per-second histograms",
          access: "user",
          permission: "run.read",
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return reports.rangeSummary(actor, request.params.id, request.query);
    },
  );

  app.get(
    "/api/runs/:id/series.csv",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary:
            "The per-second series as CSV (an export: 429 with Retry-After past the caller's exports per minute)",
          access: "user",
          produces: "text/csv",
          errors: [429],
          permission: "run.read",
        },
      },
    },
    async (request, reply) => {
      const { actor, caller } = await resolveIdentity(request);
      await limitCaller(caller, reply, "export");
      const { id } = request.params;
      return sendCsv(reply, `run-${id}.csv`, await reports.csv(actor, id));
    },
  );

  app.get(
    "/api/runs/:id/report.pdf",
    {
      schema: { params: IdParams, querystring: ReportPdfQuery },
      config: {
        doc: {
          summary:
            "The report printed to PDF by headless Chromium (an export: 429 past the caller's exports per minute; 503 when the API has no Chromium)",
          access: "user",
          produces: "application/pdf",
          errors: [429, 503, 504],
          permission: "run.read",
        },
      },
    },
    async (request, reply) => {
      const { actor, caller } = await resolveIdentity(request);
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
  );

  app.get(
    "/api/runs/compare",
    {
      schema: { querystring: CompareQuery, response: { 200: RunComparison } },
      config: {
        doc: {
          summary: "Runs side by side with deltas against the first (404 when one is not in the organisation)",
          access: "user",
          errors: [404],
          permission: "run.read",
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return reports.compare(actor, request.query.ids);
    },
  );

  app.post(
    "/api/runs/:id/share-links",
    {
      schema: {
        params: IdParams,
        body: requestBody(CreateShareLink, "share link", { optional: true }),
        response: { 201: ShareLinkCreated },
      },
      config: {
        doc: {
          summary: "Create a public read-only link to the report (shown once)",
          access: "user",
          answers: [201],
          permission: "share.manage",
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      return reply.status(201).send(await reports.createShareLink(actor, request.params.id, request.body));
    },
  );

  app.get(
    "/api/runs/:id/share-links",
    {
      schema: { params: IdParams, response: { 200: z.object({ links: z.array(ShareLinkView) }) } },
      config: {
        doc: {
          summary: "A run's share links (never their secrets)",
          access: "user",
          permission: "run.read",
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { links: await reports.shareLinks(actor, request.params.id) };
    },
  );

  app.delete(
    "/api/share-links/:id",
    {
      schema: { params: IdParams },
      config: { doc: { summary: "Revoke a share link", access: "user", answers: [204], permission: "share.manage" } },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      await reports.revokeShareLink(actor, request.params.id);
      return reply.status(204).send();
    },
  );

  app.get(
    "/api/public/reports/:token",
    {
      schema: { params: TokenParams, response: { 200: RunReport } },
      config: { doc: { summary: "A shared report, read-only, without signing in", access: "public" } },
    },
    async (request) => {
      return reports.publicReport(request.params.token);
    },
  );

  app.get(
    "/api/public/reports/:token/summary",
    {
      schema: { params: TokenParams, querystring: RunRangeQuery, response: { 200: RunRangeSummary } },
      config: {
        doc: {
          summary: "A shared run's summary over a range of its seconds, without signing in",
          access: "public",
        },
      },
    },
    async (request) => {
      return reports.publicRangeSummary(request.params.token, request.query);
    },
  );

  app.get(
    "/api/public/reports/:token/distribution",
    {
      schema: { params: TokenParams, querystring: DistributionQuery },
      config: {
        doc: {
          summary:
            "A shared run's latency distribution and heatmap over the run or the seconds from..to, without signing in",
          access: "public",
          response: LatencyDistribution,
        },
      },
    },
    async (request) => {
      return reports.publicDistribution(request.params.token, request.query);
    },
  );

  app.get(
    "/api/public/reports/:token/report.pdf",
    {
      schema: { params: TokenParams, querystring: ReportPdfQuery },
      config: {
        doc: {
          summary:
            "A shared report as PDF, without signing in (429 past the exports per minute from one address; 503 when the API has no Chromium)",
          access: "public",
          produces: "application/pdf",
          errors: [429, 503, 504],
        },
      },
    },
    async (request, reply) => {
      const { report, distributions } = await reports.publicPrintedReport(request.params.token);
      const reader = request.query;
      await limitCaller(`address:${request.ip}`, reply, "export");
      return sendReportPdf(reply, deps.pdf, report, { locale: reader.locale, timeZone: reader.tz }, distributions);
    },
  );

  app.post(
    "/api/runs/:id/estimates",
    {
      schema: { params: IdParams, body: requestBody(SaveEstimate, "estimate"), response: { 201: EstimateView } },
      config: {
        doc: {
          summary: "Keep this run's capacity estimate against a target and build",
          access: "user",
          answers: [201],
          errors: [409],
          permission: "run.start",
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      return reply.status(201).send(await estimates.save(actor, request.params.id, request.body));
    },
  );

  app.get(
    "/api/targets",
    {
      schema: { response: { 200: z.object({ targets: z.array(TargetView) }) } },
      config: {
        doc: {
          summary: "Targets with saved capacity estimates",
          access: "user",
          permission: "run.read",
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { targets: await estimates.targets(actor) };
    },
  );

  app.get(
    "/api/targets/:name/estimates",
    {
      schema: { params: NameParams, response: { 200: z.object({ estimates: z.array(EstimateView) }) } },
      config: {
        doc: {
          summary: "A target's capacity history, oldest first, with changes",
          access: "user",
          permission: "run.read",
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { estimates: await estimates.history(actor, request.params.name) };
    },
  );
}
