import type { FastifyInstance } from "fastify";
import { parseOrThrow } from "@throng/protocol/errors";
import { CreateEnrolmentToken, IdParams, type Me } from "@throng/protocol/api";
import type { ApiDeps } from "../services";

/** Org-scoped REST routes: every handler resolves the actor first, then makes one core call. */
export async function orgRoutes(app: FastifyInstance, deps: ApiDeps) {
  const { resolveActor, plans, runs, fleet } = deps;

  app.get("/api/me", async (request): Promise<Me> => {
    const actor = await resolveActor(request);
    return {
      user: { id: actor.userId, email: actor.email, name: actor.name },
      organization: { id: actor.orgId, name: actor.orgName, slug: actor.orgSlug },
    };
  });

  app.post("/api/enrolment-tokens", async (request, reply) => {
    const actor = await resolveActor(request);
    const body = parseOrThrow(CreateEnrolmentToken, request.body ?? {}, "enrolment token request");
    return reply.status(201).send(await fleet.createEnrolmentToken(actor.orgId, actor.userId, body));
  });

  app.get("/api/agents", async (request) => {
    const actor = await resolveActor(request);
    return { agents: await fleet.listAgents(actor.orgId) };
  });

  app.get("/api/plans", async (request) => {
    const actor = await resolveActor(request);
    return { plans: await plans.list(actor.orgId) };
  });

  app.post("/api/plans", async (request, reply) => {
    const actor = await resolveActor(request);
    return reply.status(201).send(await plans.create(actor.orgId, request.body));
  });

  app.get("/api/plans/:id", async (request) => {
    const actor = await resolveActor(request);
    const { id } = parseOrThrow(IdParams, request.params, "plan id");
    return plans.get(actor.orgId, id);
  });

  app.post("/api/plans/:id/runs", async (request, reply) => {
    const actor = await resolveActor(request);
    const { id } = parseOrThrow(IdParams, request.params, "plan id");
    return reply.status(201).send(await runs.create(actor.orgId, id));
  });

  app.put("/api/agents/:id/labels", async (request) => {
    const actor = await resolveActor(request);
    const { id } = parseOrThrow(IdParams, request.params, "agent id");
    return fleet.setLabels(actor.orgId, id, request.body);
  });

  app.post("/api/agents/:id/revoke", async (request, reply) => {
    const actor = await resolveActor(request);
    const { id } = parseOrThrow(IdParams, request.params, "agent id");
    await fleet.revoke(actor.orgId, id);
    return reply.status(204).send();
  });

  app.post("/api/runs/:id/abort", async (request) => {
    const actor = await resolveActor(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    await deps.orchestrator.abort(actor.orgId, id, actor.email);
    return runs.get(actor.orgId, id);
  });

  app.get("/api/runs", async (request) => {
    const actor = await resolveActor(request);
    return { runs: await runs.list(actor.orgId) };
  });

  app.get("/api/runs/:id", async (request) => {
    const actor = await resolveActor(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    return runs.get(actor.orgId, id);
  });

  app.get("/api/runs/:id/series", async (request) => {
    const actor = await resolveActor(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    return runs.series(actor.orgId, id);
  });
}
