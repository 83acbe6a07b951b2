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
import { memberRoute, memberRoutes } from "../http/member-route";

/** Plans and their versions: listed, saved, shelved, read (transport only: the caller, one core call, the answer). */
export async function planRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, plans } = deps;
  const member = memberRoutes(app, resolveIdentity);

  member.get(
    "/api/plans",
    memberRoute("plan.read", "List plans (?shelf=archived or all to see archived ones)", {
      querystring: PlanListQuery,
      response: { 200: z.object({ plans: z.array(PlanView) }) },
    }),
    async ({ actor, request }) => ({ plans: await plans.list(actor, request.query) }),
  );

  member.put(
    "/api/plans/by-name",
    memberRoute(
      "plan.write",
      "Save a plan as a new version of the active plan with that name, or a new plan (201) when none has it",
      { body: requestBody(SavePlanByName, "plan"), response: { 200: PlanView, 201: PlanView } },
      { answers: [200, 201], errors: [409] },
    ),
    async ({ actor, request, reply }) => {
      const { plan, created } = await plans.saveByName(actor, request.body);
      return reply.status(created ? 201 : 200).send(plan);
    },
  );

  member.post(
    "/api/plans/:id/archive",
    memberRoute("plan.write", "Archive a plan: hidden from the plan list, its runs kept", {
      params: IdParams,
      response: { 200: PlanView },
    }),
    ({ actor, request }) => plans.archive(actor, request.params.id, true),
  );

  member.post(
    "/api/plans/:id/restore",
    memberRoute("plan.write", "Bring an archived plan back to the plan list", {
      params: IdParams,
      response: { 200: PlanView },
    }),
    ({ actor, request }) => plans.archive(actor, request.params.id, false),
  );

  member.delete(
    "/api/plans/:id",
    memberRoute(
      "plan.write",
      "Delete a plan that never ran (409 for one with runs: archive it instead)",
      { params: IdParams },
      { answers: [204], errors: [409] },
    ),
    ({ actor, request }) => plans.remove(actor, request.params.id),
  );

  member.post(
    "/api/plans",
    memberRoute(
      "plan.write",
      "Save a new plan",
      { body: requestBody(SavePlan, "plan"), response: { 201: PlanView } },
      { answers: [201] },
    ),
    ({ actor, request }) => plans.create(actor, request.body),
  );

  member.get(
    "/api/plans/:id",
    memberRoute("plan.read", "Read a plan", { params: IdParams, response: { 200: PlanView } }),
    ({ actor, request }) => plans.get(actor, request.params.id),
  );

  member.put(
    "/api/plans/:id",
    memberRoute(
      "plan.write",
      "Save a new version of a plan (past runs keep theirs)",
      { params: IdParams, body: requestBody(UpdatePlan, "plan"), response: { 200: PlanView } },
      { errors: [409] },
    ),
    ({ actor, request }) => plans.update(actor, request.params.id, request.body),
  );

  member.get(
    "/api/plans/:id/versions",
    memberRoute("plan.read", "Every version of a plan, newest first", {
      params: IdParams,
      response: { 200: z.object({ versions: z.array(PlanVersionView) }) },
    }),
    async ({ actor, request }) => ({ versions: await plans.versions(actor, request.params.id) }),
  );
}

/** What a plan's runs need: trying its session, pinning the baseline later runs are compared with, starting a run. */
export async function planRunRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, plans, runs, trials } = deps;
  const member = memberRoutes(app, resolveIdentity);
  const limitCaller = createCallerLimits(deps);

  member.post(
    "/api/plans/try",
    memberRoute(
      "run.start",
      "Try a plan's session: one client connects from an online agent and runs its steps; each step's bytes and result (409 without an online agent, 504 when it does not answer)",
      { body: requestBody(TryPlan, "trial"), response: { 200: TrialView } },
      { errors: [404, 409, 504] },
    ),
    ({ actor, request }) => trials.run(actor, request.body),
  );

  member.put(
    "/api/plans/:id/baseline",
    memberRoute(
      "plan.write",
      "Pin one of the plan's finished runs as its baseline, which later runs are compared with (404 for a run not in the organisation, 409 for another plan's run or one not finished)",
      { params: IdParams, body: requestBody(PinBaseline, "baseline"), response: { 200: PlanView } },
      { errors: [409] },
    ),
    ({ actor, request }) => plans.pinBaseline(actor, request.params.id, request.body),
  );

  member.delete(
    "/api/plans/:id/baseline",
    memberRoute("plan.write", "Unpin the plan's baseline (later runs are compared with none)", {
      params: IdParams,
      response: { 200: PlanView },
    }),
    ({ actor, request }) => plans.unpinBaseline(actor, request.params.id),
  );

  member.post(
    "/api/plans/:id/runs",
    memberRoute(
      "run.start",
      "Start a run of a plan (429 with Retry-After past the caller's runs per minute)",
      { params: IdParams, response: { 201: RunView } },
      { answers: [201], errors: [409, 429] },
    ),
    async ({ actor, caller, request, reply }) => {
      await limitCaller(caller, reply, "runCreate");
      return runs.create(actor, request.params.id);
    },
  );
}
