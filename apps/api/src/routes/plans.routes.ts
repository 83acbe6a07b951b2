import { z } from "zod";
import {
  IdParams,
  PinBaseline,
  PlanListQuery,
  PlanVersionView,
  PlanView,
  SavePlan,
  SavePlanByName,
  UpdatePlan,
} from "@throng/protocol/api";
import { RunView } from "@throng/protocol/run";
import { TrialView, TryPlan } from "@throng/protocol/session-trial";
import { createCallerLimits } from "../http/rate-limit";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

/** Plans and their versions: listed, saved, shelved, read (transport only: the caller, one core call, the answer). */
export async function planRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, plans } = deps;
  const member = memberRoutes(app, resolveIdentity);

  member.get("/api/plans", "plan.read", {
    summary: "List plans (?shelf=archived or all to see archived ones)",
    schema: { querystring: PlanListQuery, response: { 200: z.object({ plans: z.array(PlanView) }) } },
    handler: async ({ actor, request }) => ({ plans: await plans.list(actor, request.query) }),
  });

  member.put("/api/plans/by-name", "plan.write", {
    summary: "Save a plan as a new version of the active plan with that name, or a new plan (201) when none has it",
    schema: { body: requestBody(SavePlanByName, "plan"), response: { 200: PlanView, 201: PlanView } },
    answers: [200, 201],
    errors: [409],
    handler: async ({ actor, request, reply }) => {
      const { plan, created } = await plans.saveByName(actor, request.body);
      return reply.status(created ? 201 : 200).send(plan);
    },
  });

  member.post("/api/plans/:id/archive", "plan.write", {
    summary: "Archive a plan: hidden from the plan list, its runs kept",
    schema: { params: IdParams, response: { 200: PlanView } },
    handler: ({ actor, request }) => plans.archive(actor, request.params.id, true),
  });

  member.post("/api/plans/:id/restore", "plan.write", {
    summary: "Bring an archived plan back to the plan list",
    schema: { params: IdParams, response: { 200: PlanView } },
    handler: ({ actor, request }) => plans.archive(actor, request.params.id, false),
  });

  member.delete("/api/plans/:id", "plan.write", {
    summary: "Delete a plan that never ran (409 for one with runs: archive it instead)",
    schema: { params: IdParams },
    answers: [204],
    errors: [409],
    handler: ({ actor, request }) => plans.remove(actor, request.params.id),
  });

  member.post("/api/plans", "plan.write", {
    summary: "Save a new plan",
    schema: { body: requestBody(SavePlan, "plan"), response: { 201: PlanView } },
    answers: [201],
    handler: ({ actor, request }) => plans.create(actor, request.body),
  });

  member.get("/api/plans/:id", "plan.read", {
    summary: "Read a plan",
    schema: { params: IdParams, response: { 200: PlanView } },
    handler: ({ actor, request }) => plans.get(actor, request.params.id),
  });

  member.put("/api/plans/:id", "plan.write", {
    summary: "Save a new version of a plan (past runs keep theirs)",
    schema: { params: IdParams, body: requestBody(UpdatePlan, "plan"), response: { 200: PlanView } },
    errors: [409],
    handler: ({ actor, request }) => plans.update(actor, request.params.id, request.body),
  });

  member.get("/api/plans/:id/versions", "plan.read", {
    summary: "Every version of a plan, newest first",
    schema: { params: IdParams, response: { 200: z.object({ versions: z.array(PlanVersionView) }) } },
    handler: async ({ actor, request }) => ({ versions: await plans.versions(actor, request.params.id) }),
  });
}

/** What a plan's runs need: trying its session, pinning the baseline later runs are compared with, starting a run. */
export async function planRunRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, plans, runs, trials } = deps;
  const member = memberRoutes(app, resolveIdentity);
  const limitCaller = createCallerLimits(deps);

  member.post("/api/plans/try", "run.start", {
    summary:
      "Try a plan's session: one client connects from an online agent and runs its steps; each step's bytes and result (409 without an online agent, 504 when it does not answer)",
    schema: { body: requestBody(TryPlan, "trial"), response: { 200: TrialView } },
    errors: [404, 409, 504],
    handler: ({ actor, request }) => trials.run(actor, request.body),
  });

  member.put("/api/plans/:id/baseline", "plan.write", {
    summary:
      "Pin one of the plan's finished runs as its baseline, which later runs are compared with (404 for a run not in the organisation, 409 for another plan's run or one not finished)",
    schema: { params: IdParams, body: requestBody(PinBaseline, "baseline"), response: { 200: PlanView } },
    errors: [409],
    handler: ({ actor, request }) => plans.pinBaseline(actor, request.params.id, request.body),
  });

  member.delete("/api/plans/:id/baseline", "plan.write", {
    summary: "Unpin the plan's baseline (later runs are compared with none)",
    schema: { params: IdParams, response: { 200: PlanView } },
    handler: ({ actor, request }) => plans.unpinBaseline(actor, request.params.id),
  });

  member.post("/api/plans/:id/runs", "run.start", {
    summary: "Start a run of a plan (429 with Retry-After past the caller's runs per minute)",
    schema: { params: IdParams, response: { 201: RunView } },
    answers: [201],
    errors: [409, 429],
    handler: async ({ actor, caller, request, reply }) => {
      await limitCaller(caller, reply, "runCreate");
      return runs.create(actor, request.params.id);
    },
  });
}
