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
import type { ZodFastify } from "../http/route-schema";

/** Plans: transport only — resolve the caller, one core call, answer. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the plugin lists its routes, each a few lines over one core call.
export async function planRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, plans, runs, trials } = deps;
  const limitCaller = createCallerLimits(deps);

  app.get(
    "/api/plans",
    {
      schema: { querystring: PlanListQuery },
      config: {
        doc: {
          summary: "List plans (?shelf=archived or all to see archived ones)",
          access: "user",
          permission: "plan.read",
          response: z.object({ plans: z.array(PlanView) }),
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { plans: await plans.list(actor, request.query) };
    },
  );

  app.put(
    "/api/plans/by-name",
    {
      config: {
        doc: {
          summary:
            "Save a plan as a new version of the active plan with that name, or a new plan (201) when none has it",
          access: "user",
          answers: [200, 201],
          errors: [409],
          permission: "plan.write",
          body: SavePlanByName,
          response: PlanView,
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      const { plan, created } = await plans.saveByName(actor, request.body);
      return reply.status(created ? 201 : 200).send(plan);
    },
  );

  app.post(
    "/api/plans/:id/archive",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "Archive a plan: hidden from the plan list, its runs kept",
          access: "user",
          permission: "plan.write",
          response: PlanView,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return plans.archive(actor, request.params.id, true);
    },
  );

  app.post(
    "/api/plans/:id/restore",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "Bring an archived plan back to the plan list",
          access: "user",
          permission: "plan.write",
          response: PlanView,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return plans.archive(actor, request.params.id, false);
    },
  );

  app.delete(
    "/api/plans/:id",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "Delete a plan that never ran (409 for one with runs: archive it instead)",
          access: "user",
          answers: [204],
          errors: [409],
          permission: "plan.write",
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      await plans.remove(actor, request.params.id);
      return reply.status(204).send();
    },
  );

  app.post(
    "/api/plans",
    {
      config: {
        doc: {
          summary: "Save a new plan",
          access: "user",
          answers: [201],
          permission: "plan.write",
          body: SavePlan,
          response: PlanView,
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      return reply.status(201).send(await plans.create(actor, request.body));
    },
  );

  app.post(
    "/api/plans/try",
    {
      config: {
        doc: {
          summary:
            "Try a plan's session: one client connects from an online agent and runs its steps; each step's bytes and result (409 without an online agent, 504 when it does not answer)",
          access: "user",
          errors: [404, 409, 504],
          permission: "run.start",
          body: TryPlan,
          response: TrialView,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return trials.run(actor, request.body);
    },
  );

  app.get(
    "/api/plans/:id",
    {
      schema: { params: IdParams },
      config: { doc: { summary: "Read a plan", access: "user", permission: "plan.read", response: PlanView } },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      const { id } = request.params;
      return plans.get(actor, id);
    },
  );

  app.put(
    "/api/plans/:id",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "Save a new version of a plan (past runs keep theirs)",
          access: "user",
          errors: [409],
          permission: "plan.write",
          body: UpdatePlan,
          response: PlanView,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return plans.update(actor, request.params.id, request.body);
    },
  );

  app.put(
    "/api/plans/:id/baseline",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary:
            "Pin one of the plan's finished runs as its baseline, which later runs are compared with (404 for a run not in the organisation, 409 for another plan's run or one not finished)",
          access: "user",
          errors: [409],
          permission: "plan.write",
          body: PinBaseline,
          response: PlanView,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return plans.pinBaseline(actor, request.params.id, request.body);
    },
  );

  app.delete(
    "/api/plans/:id/baseline",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "Unpin the plan's baseline (later runs are compared with none)",
          access: "user",
          permission: "plan.write",
          response: PlanView,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return plans.unpinBaseline(actor, request.params.id);
    },
  );

  app.get(
    "/api/plans/:id/versions",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "Every version of a plan, newest first",
          access: "user",
          permission: "plan.read",
          response: z.object({ versions: z.array(PlanVersionView) }),
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { versions: await plans.versions(actor, request.params.id) };
    },
  );

  app.post(
    "/api/plans/:id/runs",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "Start a run of a plan (429 with Retry-After past the caller's runs per minute)",
          access: "user",
          answers: [201],
          errors: [409, 429],
          permission: "run.start",
          response: RunView,
        },
      },
    },
    async (request, reply) => {
      const { actor, caller } = await resolveIdentity(request);
      await limitCaller(caller, reply, "runCreate");
      const { id } = request.params;
      return reply.status(201).send(await runs.create(actor, id));
    },
  );
}
