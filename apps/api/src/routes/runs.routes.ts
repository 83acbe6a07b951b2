import type { FastifyInstance } from "fastify";
import { parseOrThrow } from "@throng/protocol/errors";
import { IdParams } from "@throng/protocol/api";
import { RunSeries, RunView } from "@throng/protocol/run";
import { RunPage, RunsQuery } from "@throng/protocol/run-list";
import { RunNotesPatch } from "@throng/protocol/run-notes";
import { RunServerSeries } from "@throng/protocol/server-watch";
import { DistributionQuery, LatencyDistribution } from "@throng/protocol/latency-distribution";
import type { ApiDeps } from "../services";

/** Runs: list, read, series, abort, note and tags. */
export async function runRoutes(app: FastifyInstance, deps: ApiDeps) {
  const { resolveIdentity, runs, orchestrator } = deps;

  app.get("/api/runs", { config: { doc: { summary: "List runs, newest first: one page, filtered by status, verdict outcome, plan, tag and creation time", access: "user", permission: "run.read", query: RunsQuery, response: RunPage } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    return runs.list(actor, parseOrThrow(RunsQuery, request.query, "runs query"));
  });

  app.get("/api/runs/:id", { config: { doc: { summary: "Read a run", access: "user", params: IdParams, permission: "run.read", response: RunView } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    return runs.get(actor, id);
  });

  app.patch("/api/runs/:id", { config: { doc: { summary: "Set a run's note and/or tags (tags replace the set; a field left out is kept)", access: "user", params: IdParams, permission: "run.annotate", body: RunNotesPatch, response: RunView } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    return runs.annotate(actor, id, request.body);
  });

  app.get("/api/runs/:id/series", { config: { doc: { summary: "A run's merged per-second series", access: "user", params: IdParams, permission: "run.read", response: RunSeries } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    return runs.series(actor, id);
  });

  app.get("/api/runs/:id/distribution", { config: { doc: { summary: "A latency metric's distribution (log buckets, percentiles) and heatmap over the run or the seconds from..to, from the merged per-second HDR histograms", access: "user", params: IdParams, permission: "run.read", query: DistributionQuery, response: LatencyDistribution } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    return runs.distribution(actor, id, request.query);
  });

  app.get("/api/runs/:id/server", { config: { doc: { summary: "The server under test, second by second, as the plan's watchers sampled it", access: "user", params: IdParams, permission: "run.read", response: RunServerSeries } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    return runs.serverSeries(actor, id);
  });

  app.post("/api/runs/:id/abort", { config: { doc: { summary: "Abort a run: every agent stops", access: "user", params: IdParams, errors: [409], permission: "run.abort", response: RunView } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    await orchestrator.abortRun(actor, id);
    return runs.get(actor, id);
  });
}
