import { IdParams } from "@throng/protocol/api";
import { PlanScheduleView, SetPlanSchedule } from "@throng/protocol/plan-schedule";
import type { ApiDeps } from "../services";
import type { ZodFastify } from "../http/route-schema";

/** A plan's cron schedule: read, set, remove. Transport only; the workers fire it. */
export async function scheduleRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, schedules } = deps;

  app.get("/api/plans/:id/schedule", { schema: { params: IdParams }, config: { doc: { summary: "The plan's cron schedule and its next three times (schedule null when none)", access: "user", permission: "plan.read", response: PlanScheduleView } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    return schedules.get(actor, request.params.id);
  });

  app.put("/api/plans/:id/schedule", { schema: { params: IdParams }, config: { doc: { summary: "Run the plan on a cron schedule (replaces any other); runs start as you", access: "user", permission: "run.start", body: SetPlanSchedule, response: PlanScheduleView } } }, async (request) => {
    const { actor } = await resolveIdentity(request);
    return schedules.set(actor, request.params.id, request.body);
  });

  app.delete("/api/plans/:id/schedule", { schema: { params: IdParams }, config: { doc: { summary: "Stop running the plan on a schedule", access: "user", answers: [204], permission: "run.start" } } }, async (request, reply) => {
    const { actor } = await resolveIdentity(request);
    await schedules.remove(actor, request.params.id);
    return reply.status(204).send();
  });
}
