import { IdParams } from "@throng/protocol/api";
import { RunSeries, RunView } from "@throng/protocol/run";
import { RunPage, RunsQuery } from "@throng/protocol/run-list";
import { RunNotesPatch } from "@throng/protocol/run-notes";
import { RunServerSeries } from "@throng/protocol/server-watch";
import { RunErrorSamples } from "@throng/protocol/error-samples";
import { RunRooms } from "@throng/protocol/rooms";
import { DistributionQuery, LatencyDistribution } from "@throng/protocol/latency-distribution";
import type { ApiDeps } from "../services";
import type { ZodFastify } from "../http/route-schema";

/** Runs: list, read, series, abort, note and tags. */
export async function runRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, runs, orchestrator } = deps;

  app.get(
    "/api/runs",
    {
      schema: { querystring: RunsQuery },
      config: {
        doc: {
          summary:
            "List runs, newest first: one page, filtered by status, verdict outcome, plan, tag and creation time",
          access: "user",
          permission: "run.read",
          response: RunPage,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return runs.list(actor, request.query);
    },
  );

  app.get(
    "/api/runs/:id",
    {
      schema: { params: IdParams },
      config: { doc: { summary: "Read a run", access: "user", permission: "run.read", response: RunView } },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      const { id } = request.params;
      return runs.get(actor, id);
    },
  );

  app.patch(
    "/api/runs/:id",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "Set a run's note and/or tags (tags replace the set; a field left out is kept)",
          access: "user",
          permission: "run.annotate",
          body: RunNotesPatch,
          response: RunView,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      const { id } = request.params;
      return runs.annotate(actor, id, request.body);
    },
  );

  app.get(
    "/api/runs/:id/series",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "A run's merged per-second series",
          access: "user",
          permission: "run.read",
          response: RunSeries,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      const { id } = request.params;
      return runs.series(actor, id);
    },
  );

  app.get(
    "/api/runs/:id/distribution",
    {
      schema: { params: IdParams, querystring: DistributionQuery },
      config: {
        doc: {
          summary:
            "A latency metric's distribution (log buckets, percentiles) and heatmap over the run or the seconds from..to, from the merged per-second HDR histograms",
          access: "user",
          permission: "run.read",
          response: LatencyDistribution,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return runs.distribution(actor, request.params.id, request.query);
    },
  );

  app.get(
    "/api/runs/:id/server",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "The server under test, second by second, as the plan's watchers sampled it",
          access: "user",
          permission: "run.read",
          response: RunServerSeries,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      const { id } = request.params;
      return runs.serverSeries(actor, id);
    },
  );

  app.get(
    "/api/runs/:id/errors",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary:
            "The first distinct samples of each error kind (message, time, client, agent, the bytes that caused it; secrets masked)",
          access: "user",
          permission: "run.read",
          response: RunErrorSamples,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return runs.errorSamples(actor, request.params.id);
    },
  );

  app.get(
    "/api/runs/:id/rooms",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary:
            "movement-sync: the worst rooms by reach, then p99 (at most 50, across agents), and the spread over every room",
          access: "user",
          permission: "run.read",
          response: RunRooms,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return runs.rooms(actor, request.params.id);
    },
  );

  app.post(
    "/api/runs/:id/abort",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "Abort a run: every agent stops",
          access: "user",
          errors: [409],
          permission: "run.abort",
          response: RunView,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      const { id } = request.params;
      await orchestrator.abortRun(actor, id);
      return runs.get(actor, id);
    },
  );
}
