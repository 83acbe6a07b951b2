import type { z } from "zod";
import type { Actor } from "@throng/core/orgs/permissions";
import { IdParams } from "@throng/protocol/api";
import { RunSeries, RunView } from "@throng/protocol/run";
import { RunPage, RunsQuery } from "@throng/protocol/run-list";
import { RunNotesPatch } from "@throng/protocol/run-notes";
import { RunServerSeries } from "@throng/protocol/server-watch";
import { RunErrorSamples } from "@throng/protocol/error-samples";
import { RunRooms } from "@throng/protocol/rooms";
import { DistributionQuery, LatencyDistribution } from "@throng/protocol/latency-distribution";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

/** What a read of one run declares: its summary, its query where it takes one, its answer, and the run service's read. */
interface RunViewSpec<Q extends z.ZodObject, A extends z.ZodType> {
  summary: string;
  query?: Q;
  answer: A;
  read: (actor: Actor, runId: string, query: z.output<Q>) => Promise<z.input<A>>;
}

/** Runs: list, read, series, abort, note and tags. */
export async function runRoutes(app: ZodFastify, { resolveIdentity, runs, orchestrator }: ApiDeps) {
  const member = memberRoutes(app, resolveIdentity);
  /**
   * A read of one run by its id, the run itself or a view beside it (`GET /api/runs/:id`, `/api/runs/:id/series`):
   * the run's id (and the query, where the read takes one) in, one read of the run service out. RunViewSpec ties the
   * read to its schemas at each call; Fastify's types cannot follow generic schemas, so the route itself is declared
   * with any.
   */
  const runView = <const Q extends z.ZodObject, const A extends z.ZodType>(
    url: `/api/runs/:id${string}`,
    { summary, query, answer, read }: RunViewSpec<Q, A>,
  ) =>
    member.get(url, "run.read", {
      summary,
      schema: { params: IdParams, ...(query && { querystring: query }), response: { 200: answer as z.ZodType } },
      handler: ({ actor, request }) => read(actor, request.params.id, request.query as z.output<Q>),
    });

  member.get("/api/runs", "run.read", {
    summary: "List runs, newest first: one page, filtered by status, verdict outcome, plan, tag and creation time",
    schema: { querystring: RunsQuery, response: { 200: RunPage } },
    handler: ({ actor, request }) => runs.list(actor, request.query),
  });

  runView("/api/runs/:id", { summary: "Read a run", answer: RunView, read: runs.get });

  member.patch("/api/runs/:id", "run.annotate", {
    summary: "Set a run's note and/or tags (tags replace the set; a field left out is kept)",
    schema: { params: IdParams, body: requestBody(RunNotesPatch, "run note and tags"), response: { 200: RunView } },
    handler: ({ actor, request }) => runs.annotate(actor, request.params.id, request.body),
  });

  runView("/api/runs/:id/series", {
    summary: "A run's merged per-second series",
    answer: RunSeries,
    read: runs.series,
  });

  runView("/api/runs/:id/distribution", {
    summary:
      "A latency metric's distribution (log buckets, percentiles) and heatmap over the run or the seconds from..to, from the merged per-second HDR histograms",
    query: DistributionQuery,
    answer: LatencyDistribution,
    read: runs.distribution,
  });

  runView("/api/runs/:id/server", {
    summary: "The server under test, second by second, as the plan's watchers sampled it",
    answer: RunServerSeries,
    read: runs.serverSeries,
  });

  runView("/api/runs/:id/errors", {
    summary:
      "The first distinct samples of each error kind (message, time, client, agent, the bytes that caused it; secrets masked)",
    answer: RunErrorSamples,
    read: runs.errorSamples,
  });

  runView("/api/runs/:id/rooms", {
    summary:
      "movement-sync: the worst rooms by reach, then p99 (at most 50, across agents), and the spread over every room",
    answer: RunRooms,
    read: runs.rooms,
  });

  member.post("/api/runs/:id/abort", "run.abort", {
    summary: "Abort a run: every agent stops",
    schema: { params: IdParams, response: { 200: RunView } },
    errors: [409],
    handler: async ({ actor, request }) => {
      const { id } = request.params;
      await orchestrator.abortRun(actor, id);
      return runs.get(actor, id);
    },
  });
}
