import { CronExpressionParser } from "cron-parser";
import { parseOrThrow, ThrongError } from "@throng/protocol/errors";
import { PlanScheduleView, SetPlanSchedule } from "@throng/protocol/plan-schedule";
import { OrgSettings, Role } from "@throng/protocol/orgs";
import { PlanSpec } from "@throng/protocol/plan";
import type { Repos } from "@throng/db/repos";
import type { PlanScheduleRow } from "@throng/db/repos/plan-schedules";
import type { Clock, Jobs, Log } from "../ports";
import { authorize, type Actor } from "../orgs/permissions";
import { checkPlanAgainstSettings } from "../orgs/target-policy";
import type { NotificationService } from "../notifications/notification-service";
import type { AuditLog } from "../orgs/audit";
import type { RunService } from "../runs/run-service";

/** The next `count` times a schedule fires, or a field error naming what is wrong with it. */
export function nextRuns(cron: string, timezone: string, from: Date, count = 3): string[] {
  try {
    new Intl.DateTimeFormat("en", { timeZone: timezone });
  } catch {
    throw new ThrongError("validation_failed", `timezone: "${timezone}" is not a time zone; use an IANA name such as UTC or Europe/Berlin`, [{ path: "timezone", message: "not a time zone: use an IANA name such as UTC or Europe/Berlin" }]);
  }
  try {
    return CronExpressionParser.parse(cron, { tz: timezone, currentDate: from, strict: false }).take(count).map((date) => date.toDate().toISOString());
  } catch (cause) {
    const why = (cause as Error).message;
    throw new ThrongError("validation_failed", `cron: ${why}`, [{ path: "cron", message: `not a schedule this can read (${why}): five fields, e.g. 0 3 * * * for 03:00 every day` }]);
  }
}

/**
 * Plan schedules: a plan runs whenever its cron expression fires (BullMQ's job scheduler in the workers produces
 * the jobs). Each fired job starts a run as the user who set the schedule, so their role still applies.
 */
export function createPlanScheduleService(deps: {
  repos: Repos; jobs: Jobs; clock: Clock; log: Log;
  /** The workers' part (firing): starting the run, and saying so in the audit log and the org's channels when it cannot. */
  runs?: Pick<RunService, "create">; audit?: Pick<AuditLog, "record">; notifications?: Pick<NotificationService, "scheduleFailed">;
}) {
  const { repos, jobs, clock, log } = deps;

  const view = (row: PlanScheduleRow | undefined): PlanScheduleView => ({
    schedule: row
      ? {
        cron: row.cron, timezone: row.timezone, nextRuns: nextRuns(row.cron, row.timezone, new Date(clock.now())), updatedAt: row.updatedAt.toISOString(),
        lastAttempt: row.lastAttemptAt ? { at: row.lastAttemptAt.toISOString(), runId: row.lastRunId, error: row.lastError } : null,
      }
      : null,
  });

  /** A firing that started no run: kept on the schedule, in the audit log and sent to the org's channels. */
  async function notStarted(orgId: string, plan: { id: string; name: string }, reason: string): Promise<null> {
    log.warn({ orgId, planId: plan.id, reason }, "scheduled run not started");
    await repos.planSchedules.recordAttempt(orgId, plan.id, { at: new Date(clock.now()), runId: null, error: reason });
    await deps.audit?.record(orgId, "schedule", "schedule.run-not-started", plan.id, { name: plan.name, reason });
    await deps.notifications?.scheduleFailed(orgId, plan.id, reason);
    return null;
  }

  async function planOf(actor: Actor, planId: string) {
    const plan = await repos.plans.get(actor.orgId, planId);
    if (!plan) throw new ThrongError("not_found", `No plan ${planId} in this organisation`);
    return plan;
  }

  return {
    async get(actor: Actor, planId: string): Promise<PlanScheduleView> {
      authorize(actor, "plan.read");
      await planOf(actor, planId);
      return view(await repos.planSchedules.get(actor.orgId, planId));
    },

    async set(actor: Actor, planId: string, input: unknown): Promise<PlanScheduleView> {
      authorize(actor, "run.start");
      const { cron, timezone } = parseOrThrow(SetPlanSchedule, input, "schedule");
      nextRuns(cron, timezone, new Date(clock.now()));
      const plan = await planOf(actor, planId);
      // A schedule whose every firing would be refused is not turned on: say now what to fix, not at 03:00.
      checkPlanAgainstSettings(PlanSpec.parse(plan.spec), OrgSettings.parse((await repos.orgs.getSettings(actor.orgId)) ?? {}));
      const row = await repos.planSchedules.upsert(actor.orgId, { planId, cron, timezone, createdBy: actor.userId });
      await jobs.schedulePlan({ orgId: actor.orgId, planId }, cron, timezone);
      return view(row);
    },

    async remove(actor: Actor, planId: string): Promise<void> {
      authorize(actor, "run.start");
      await planOf(actor, planId);
      await repos.planSchedules.remove(actor.orgId, planId);
      await jobs.unschedulePlan(planId);
    },

    /**
     * Workers, when a schedule fires: a run of the plan, started as the schedule's author. A plan deleted or
     * unscheduled since stops its scheduler; a run that cannot start (the plan archived, its author gone, no agent
     * online, a refused plan) skips this time and says why where the team looks (see `notStarted`).
     */
    async fire(orgId: string, planId: string): Promise<string | null> {
      const schedule = await repos.planSchedules.get(orgId, planId);
      const plan = schedule && (await repos.plans.get(orgId, planId));
      if (!schedule || !plan) {
        await jobs.unschedulePlan(planId);
        return null;
      }
      if (!deps.runs) throw new Error("plan schedules fire in the workers, which give the service their run service");
      if (plan.archivedAt) return notStarted(orgId, plan, "the plan is archived: restore it, or remove its schedule");
      const role = Role.safeParse((await repos.orgs.membership(schedule.createdBy, orgId))?.role);
      if (!role.success) return notStarted(orgId, plan, "whoever set the schedule is no longer a member of the organisation: set the schedule again");
      const actor: Actor = { orgId, userId: schedule.createdBy, role: role.data, label: "schedule", via: "api-token" };
      try {
        const run = await deps.runs.create(actor, planId);
        await repos.planSchedules.recordAttempt(orgId, planId, { at: new Date(clock.now()), runId: run.id, error: null });
        return run.id;
      } catch (error) {
        if (!(error instanceof ThrongError)) throw error; // the database or Redis: the queue retries the job
        return notStarted(orgId, plan, error.message);
      }
    },
  };
}
export type PlanScheduleService = ReturnType<typeof createPlanScheduleService>;
