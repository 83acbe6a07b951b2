import { IdParams } from "@throng/protocol/api";
import { OrgSchedulesView, PlanScheduleView, SetPlanSchedule } from "@throng/protocol/plan-schedule";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

/** Plans' cron schedules: the organisation's list, and one plan's read, set, pause, resume, remove. Transport only; the workers fire them. */
export async function scheduleRoutes(app: ZodFastify, { resolveIdentity, schedules }: ApiDeps) {
  const member = memberRoutes(app, resolveIdentity);

  member.get("/api/schedules", "plan.read", {
    summary: "Every schedule of the organisation: its plan, next firing, last firing and that run's verdict",
    schema: { response: { 200: OrgSchedulesView } },
    handler: async ({ actor }) => ({ schedules: await schedules.list(actor) }),
  });

  member.post("/api/plans/:id/schedule/pause", "run.start", {
    summary: "Pause the plan's schedule: it keeps its cron and zone and does not fire until resumed",
    schema: { params: IdParams, response: { 200: PlanScheduleView } },
    handler: ({ actor, request }) => schedules.pause(actor, request.params.id),
  });

  member.post("/api/plans/:id/schedule/resume", "run.start", {
    summary:
      "Resume the plan's paused schedule (refused when the plan could not start under the organisation's settings)",
    schema: { params: IdParams, response: { 200: PlanScheduleView } },
    handler: ({ actor, request }) => schedules.resume(actor, request.params.id),
  });

  member.get("/api/plans/:id/schedule", "plan.read", {
    summary: "The plan's cron schedule and its next three times (schedule null when none)",
    schema: { params: IdParams, response: { 200: PlanScheduleView } },
    handler: ({ actor, request }) => schedules.get(actor, request.params.id),
  });

  member.put("/api/plans/:id/schedule", "run.start", {
    summary: "Run the plan on a cron schedule (replaces any other); runs start as you",
    schema: { params: IdParams, body: requestBody(SetPlanSchedule, "schedule"), response: { 200: PlanScheduleView } },
    handler: ({ actor, request }) => schedules.set(actor, request.params.id, request.body),
  });

  member.delete("/api/plans/:id/schedule", "run.start", {
    summary: "Stop running the plan on a schedule",
    schema: { params: IdParams },
    answers: [204],
    handler: ({ actor, request }) => schedules.remove(actor, request.params.id),
  });
}
