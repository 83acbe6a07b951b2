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

/** Runs: list, read, series, abort, note and tags. */
export async function runRoutes(app: ZodFastify, { resolveIdentity, runs, orchestrator }: ApiDeps) {
  const member = memberRoutes(app, resolveIdentity);

  member.get("/api/runs", "run.read", {
    summary: "List runs, newest first: one page, filtered by status, verdict outcome, plan, tag and creation time",
    schema: { querystring: RunsQuery, response: { 200: RunPage } },
    handler: ({ actor, request }) => runs.list(actor, request.query),
  });

  member.get("/api/runs/:id", "run.read", {
    summary: "Read a run",
    schema: { params: IdParams, response: { 200: RunView } },
    handler: ({ actor, request }) => runs.get(actor, request.params.id),
  });

  member.patch("/api/runs/:id", "run.annotate", {
    summary: "Set a run's note and/or tags (tags replace the set; a field left out is kept)",
    schema: { params: IdParams, body: requestBody(RunNotesPatch, "run note and tags"), response: { 200: RunView } },
    handler: ({ actor, request }) => runs.annotate(actor, request.params.id, request.body),
  });

  member.get("/api/runs/:id/series", "run.read", {
    summary: "A run's merged per-second series",
    schema: { params: IdParams, response: { 200: RunSeries } },
    handler: ({ actor, request }) => runs.series(actor, request.params.id),
  });

  member.get("/api/runs/:id/distribution", "run.read", {
    summary:
      "A latency metric's distribution (log buckets, percentiles) and heatmap over the run or the seconds from..to, from the merged per-second HDR histograms",
    schema: { params: IdParams, querystring: DistributionQuery, response: { 200: LatencyDistribution } },
    handler: ({ actor, request }) => runs.distribution(actor, request.params.id, request.query),
  });

  member.get("/api/runs/:id/server", "run.read", {
    summary: "The server under test, second by second, as the plan's watchers sampled it",
    schema: { params: IdParams, response: { 200: RunServerSeries } },
    handler: ({ actor, request }) => runs.serverSeries(actor, request.params.id),
  });

  member.get("/api/runs/:id/errors", "run.read", {
    summary:
      "The first distinct samples of each error kind (message, time, client, agent, the bytes that caused it; secrets masked)",
    schema: { params: IdParams, response: { 200: RunErrorSamples } },
    handler: ({ actor, request }) => runs.errorSamples(actor, request.params.id),
  });

  member.get("/api/runs/:id/rooms", "run.read", {
    summary:
      "movement-sync: the worst rooms by reach, then p99 (at most 50, across agents), and the spread over every room",
    schema: { params: IdParams, response: { 200: RunRooms } },
    handler: ({ actor, request }) => runs.rooms(actor, request.params.id),
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
