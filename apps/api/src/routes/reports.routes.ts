import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { parseOrThrow } from "@throng/protocol/errors";
import { IdParams, TokenParams } from "@throng/protocol/api";
import { RunReport } from "@throng/protocol/run";
import { RunRangeQuery, RunRangeSummary } from "@throng/protocol/run-range";
import {
  CompareQuery, CreateShareLink, EstimateView, ReportPdfQuery, RunComparison, SaveEstimate, ShareLinkCreated, ShareLinkView, TargetView,
} from "@throng/protocol/report";
import { createCallerLimits } from "../http/rate-limit";
import { sendReportPdf } from "../pdf/report-pdf-reply";
import type { ApiDeps } from "../services";

const NameParams = z.object({ name: z.string().min(1).max(100) });

/** Reports, exports, comparisons, share links and saved capacity estimates. */
export async function reportRoutes(app: FastifyInstance, deps: ApiDeps) {
  const { resolveIdentity, reports, estimates } = deps;
  const limitCaller = createCallerLimits(deps);
  app.addHook("onClose", () => deps.pdf.close()); // the one Chromium goes with the app

  app.get("/api/runs/:id/report", { config: { doc: { summary: "A run's report: the run with verdicts and capacity, and its series (an export: 429 with Retry-After past the caller's exports per minute)", access: "user", params: IdParams, errors: [429], permission: "run.read", response: RunReport } } }, async (request, reply) => {
    const { actor, caller } = await resolveIdentity(request);
    await limitCaller(caller, reply, "export");
    return reports.report(actor, parseOrThrow(IdParams, request.params, "run id").id);
  });

  app.get("/api/runs/:id/summary", { config: { doc: { summary: "The run's summary over a range of its seconds (from, to: whole seconds since its start; to excluded), merged from the stored per-second histograms", access: "user", params: IdParams, query: RunRangeQuery, permission: "run.read", response: RunRangeSummary } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    return reports.rangeSummary(actor, parseOrThrow(IdParams, request.params, "run id").id, request.query);
  });

  app.get("/api/runs/:id/series.csv", { config: { doc: { summary: "The per-second series as CSV (an export: 429 with Retry-After past the caller's exports per minute)", access: "user", params: IdParams, produces: "text/csv", errors: [429], permission: "run.read" } } }, async (request, reply) => {
    const { actor, caller } = await resolveIdentity(request);
    await limitCaller(caller, reply, "export");
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    return reply
      .type("text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="run-${id}.csv"`)
      .send(await reports.csv(actor, id));
  });

  app.get("/api/runs/:id/report.pdf", { config: { doc: { summary: "The report printed to PDF by headless Chromium (an export: 429 past the caller's exports per minute; 503 when the API has no Chromium)", access: "user", params: IdParams, query: ReportPdfQuery, produces: "application/pdf", errors: [429, 503, 504], permission: "run.read" } } }, async (request, reply) => {
    const { actor, caller } = await resolveIdentity(request);
    const reader = parseOrThrow(ReportPdfQuery, request.query, "reader");
    await limitCaller(caller, reply, "export");
    return sendReportPdf(reply, deps.pdf, await reports.report(actor, parseOrThrow(IdParams, request.params, "run id").id), { locale: reader.locale, timeZone: reader.tz });
  });

  app.get("/api/runs/compare", { config: { doc: { summary: "Runs side by side with deltas against the first (404 when one is not in the organisation)", access: "user", query: CompareQuery, errors: [404], permission: "run.read", response: RunComparison } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    return reports.compare(actor, parseOrThrow(CompareQuery, request.query, "comparison").ids);
  });

  app.post("/api/runs/:id/share-links", { config: { doc: { summary: "Create a public read-only link to the report (shown once)", access: "user", params: IdParams, optionalBody: true, answers: [201], permission: "share.manage", body: CreateShareLink, response: ShareLinkCreated } } }, async (request, reply) => {
    const { actor } = await resolveIdentity(request);
    return reply.status(201).send(await reports.createShareLink(actor, parseOrThrow(IdParams, request.params, "run id").id, request.body));
  });

  app.get("/api/runs/:id/share-links", { config: { doc: { summary: "A run's share links (never their secrets)", access: "user", params: IdParams, permission: "run.read", response: z.object({ links: z.array(ShareLinkView) }) } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    return { links: await reports.shareLinks(actor, parseOrThrow(IdParams, request.params, "run id").id) };
  });

  app.delete("/api/share-links/:id", { config: { doc: { summary: "Revoke a share link", access: "user", params: IdParams, answers: [204], permission: "share.manage" } } }, async (request, reply) => {
    const { actor } = await resolveIdentity(request);
    await reports.revokeShareLink(actor, parseOrThrow(IdParams, request.params, "share link id").id);
    return reply.status(204).send();
  });

  app.get("/api/public/reports/:token", { config: { doc: { summary: "A shared report, read-only, without signing in", access: "public", params: TokenParams, response: RunReport } } }, async (request) => {
    return reports.publicReport(parseOrThrow(TokenParams, request.params, "share link").token);
  });

  app.get("/api/public/reports/:token/summary", { config: { doc: { summary: "A shared run's summary over a range of its seconds, without signing in", access: "public", params: TokenParams, query: RunRangeQuery, response: RunRangeSummary } } }, async (request) => {
    return reports.publicRangeSummary(parseOrThrow(TokenParams, request.params, "share link").token, request.query);
  });

  app.get("/api/public/reports/:token/report.pdf", { config: { doc: { summary: "A shared report as PDF, without signing in (429 past the exports per minute from one address; 503 when the API has no Chromium)", access: "public", params: TokenParams, query: ReportPdfQuery, produces: "application/pdf", errors: [429, 503, 504] } } }, async (request, reply) => {
    const report = await reports.publicReport(parseOrThrow(TokenParams, request.params, "share link").token);
    const reader = parseOrThrow(ReportPdfQuery, request.query, "reader");
    await limitCaller(`address:${request.ip}`, reply, "export");
    return sendReportPdf(reply, deps.pdf, report, { locale: reader.locale, timeZone: reader.tz });
  });

  app.post("/api/runs/:id/estimates", { config: { doc: { summary: "Keep this run's capacity estimate against a target and build", access: "user", params: IdParams, answers: [201], errors: [409], permission: "run.start", body: SaveEstimate, response: EstimateView } } }, async (request, reply) => {
    const { actor } = await resolveIdentity(request);
    return reply.status(201).send(await estimates.save(actor, parseOrThrow(IdParams, request.params, "run id").id, request.body));
  });

  app.get("/api/targets", { config: { doc: { summary: "Targets with saved capacity estimates", access: "user", permission: "run.read", response: z.object({ targets: z.array(TargetView) }) } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    return { targets: await estimates.targets(actor) };
  });

  app.get("/api/targets/:name/estimates", { config: { doc: { summary: "A target's capacity history, oldest first, with changes", access: "user", params: NameParams, permission: "run.read", response: z.object({ estimates: z.array(EstimateView) }) } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    return { estimates: await estimates.history(actor, parseOrThrow(NameParams, request.params, "target").name) };
  });
}
