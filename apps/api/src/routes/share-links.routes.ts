import { z } from "zod";
import { IdParams, TokenParams } from "@throng/protocol/api";
import { RunReport } from "@throng/protocol/run";
import { RunRangeQuery, RunRangeSummary } from "@throng/protocol/run-range";
import { DistributionQuery, LatencyDistribution } from "@throng/protocol/latency-distribution";
import { CreateShareLink, ReportPdfQuery, ShareLinkCreated, ShareLinkView } from "@throng/protocol/report";
import { createCallerLimits } from "../http/rate-limit";
import { sendReportPdf } from "../pdf/report-pdf-reply";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

/** What a read of a shared run declares: its summary, its query where it takes one, its answer, and the read. */
interface SharedReadSpec<Q extends z.ZodObject, A extends z.ZodType> {
  summary: string;
  query?: Q;
  answer: A;
  read: (token: string, query: z.output<Q>) => Promise<z.input<A>>;
}

/** Share links to a run's report, and the shared report as the public reads it without signing in. */
export async function shareLinkRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, reports } = deps;
  const member = memberRoutes(app, resolveIdentity);
  const limitCaller = createCallerLimits(deps);
  /**
   * A read of a shared run by its link's token, without signing in: the token (and the query, where the read takes
   * one) in, one read of the shared report out. SharedReadSpec ties the read to its schemas at each call; Fastify's
   * types cannot follow generic schemas, so the route itself is declared with any.
   */
  const sharedRead = <const Q extends z.ZodObject, const A extends z.ZodType>(
    url: `/api/public/reports/:token${string}`,
    { summary, query, answer, read }: SharedReadSpec<Q, A>,
  ) =>
    app.get(
      url,
      {
        schema: {
          params: TokenParams,
          ...(query && { querystring: query }),
          response: { 200: answer as z.ZodType },
        },
        config: { doc: { summary, access: "public" } },
      },
      (request) => read(request.params.token, request.query as z.output<Q>),
    );

  member.post("/api/runs/:id/share-links", "share.manage", {
    summary: "Create a public read-only link to the report (shown once)",
    schema: {
      params: IdParams,
      body: requestBody(CreateShareLink, "share link", { optional: true }),
      response: { 201: ShareLinkCreated },
    },
    answers: [201],
    handler: ({ actor, request }) => reports.createShareLink(actor, request.params.id, request.body),
  });

  member.get("/api/runs/:id/share-links", "run.read", {
    summary: "A run's share links (never their secrets)",
    schema: { params: IdParams, response: { 200: z.object({ links: z.array(ShareLinkView) }) } },
    handler: async ({ actor, request }) => ({ links: await reports.shareLinks(actor, request.params.id) }),
  });

  member.delete("/api/share-links/:id", "share.manage", {
    summary: "Revoke a share link",
    schema: { params: IdParams },
    answers: [204],
    handler: ({ actor, request }) => reports.revokeShareLink(actor, request.params.id),
  });

  sharedRead("/api/public/reports/:token", {
    summary: "A shared report, read-only, without signing in",
    answer: RunReport,
    read: reports.publicReport,
  });

  sharedRead("/api/public/reports/:token/summary", {
    summary: "A shared run's summary over a range of its seconds, without signing in",
    query: RunRangeQuery,
    answer: RunRangeSummary,
    read: reports.publicRangeSummary,
  });

  sharedRead("/api/public/reports/:token/distribution", {
    summary: "A shared run's latency distribution and heatmap over the run or the seconds from..to, without signing in",
    query: DistributionQuery,
    answer: LatencyDistribution,
    read: reports.publicDistribution,
  });

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
}
