import { z } from "zod";
import { IdParams } from "@throng/protocol/api";
import { EstimateView, SaveEstimate, TargetView } from "@throng/protocol/report";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

const NameParams = z.object({ name: z.string().min(1).max(100) });

/** Capacity estimates kept against a target and build, and each target's capacity history. */
export async function estimateRoutes(app: ZodFastify, { resolveIdentity, estimates }: ApiDeps) {
  const member = memberRoutes(app, resolveIdentity);

  member.post("/api/runs/:id/estimates", "run.start", {
    summary: "Keep this run's capacity estimate against a target and build",
    schema: { params: IdParams, body: requestBody(SaveEstimate, "estimate"), response: { 201: EstimateView } },
    answers: [201],
    errors: [409],
    handler: ({ actor, request }) => estimates.save(actor, request.params.id, request.body),
  });

  member.get("/api/targets", "run.read", {
    summary: "Targets with saved capacity estimates",
    schema: { response: { 200: z.object({ targets: z.array(TargetView) }) } },
    handler: async ({ actor }) => ({ targets: await estimates.targets(actor) }),
  });

  member.get("/api/targets/:name/estimates", "run.read", {
    summary: "A target's capacity history, oldest first, with changes",
    schema: { params: NameParams, response: { 200: z.object({ estimates: z.array(EstimateView) }) } },
    handler: async ({ actor, request }) => ({ estimates: await estimates.history(actor, request.params.name) }),
  });
}
