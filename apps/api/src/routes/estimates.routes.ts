import { z } from "zod";
import { IdParams } from "@throng/protocol/api";
import { EstimateView, SaveEstimate, TargetView } from "@throng/protocol/report";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";

const NameParams = z.object({ name: z.string().min(1).max(100) });

/** Capacity estimates kept against a target and build, and each target's capacity history. */
export async function estimateRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, estimates } = deps;

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
