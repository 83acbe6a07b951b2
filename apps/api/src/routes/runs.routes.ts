import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { parseOrThrow } from "@throng/protocol/errors";
import { IdParams } from "@throng/protocol/api";
import { RunSeries, RunView } from "@throng/protocol/run";
import { RunServerSeries } from "@throng/protocol/server-watch";
import type { ApiDeps } from "../services";

/** Runs: list, read, series, abort. */
export async function runRoutes(app: FastifyInstance, deps: ApiDeps) {
  const { resolveIdentity, runs, orchestrator } = deps;

  app.get("/api/runs", { config: { doc: { summary: "List runs, newest first", access: "user", permission: "run.read", response: z.object({ runs: z.array(RunView) }) } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    return { runs: await runs.list(actor) };
  });

  app.get("/api/runs/:id", { config: { doc: { summary: "Read a run", access: "user", permission: "run.read", response: RunView } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    return runs.get(actor, id);
  });

  app.get("/api/runs/:id/series", { config: { doc: { summary: "A run's merged per-second series", access: "user", permission: "run.read", response: RunSeries } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    return runs.series(actor, id);
  });

  app.get("/api/runs/:id/server", { config: { doc: { summary: "The server under test, second by second, as the plan's watchers sampled it", access: "user", permission: "run.read", response: RunServerSeries } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    return runs.serverSeries(actor, id);
  });

  app.post("/api/runs/:id/abort", { config: { doc: { summary: "Abort a run: every agent stops", access: "user", permission: "run.abort", response: RunView } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    await orchestrator.abortRun(actor, id);
    return runs.get(actor, id);
  });
}
