import { CronExpressionParser } from "cron-parser";
import { parseOrThrow, ThrongError } from "@throng/protocol/errors";
import { cronInWords } from "@throng/protocol/cron-words";
import {
  type PlanScheduleView,
  SetPlanSchedule,
  type NextScheduledRun,
  type OrgScheduleView,
} from "@throng/protocol/plan-schedule";
import { VerdictOutcome } from "@throng/protocol/report";
import { OrgSettings, Role } from "@throng/protocol/orgs";
import type { Repos } from "@throng/db/repos";
import type { OrgScheduleRow, PlanScheduleRow } from "@throng/db/repos/plan-schedules";
import type { Clock, Jobs, Log } from "../ports";
import { authorize, type Actor } from "../orgs/permissions";
import { checkPlanAgainstSettings } from "../orgs/target-policy";
import type { NotificationService } from "../notifications/notification-service";
import type { AuditLog } from "../orgs/audit";
import type { RunService } from "../runs/run-service";

/** The five fields of a cron schedule, in order, with the values each takes (month and weekday also by name). */
const CRON_FIELDS = [
  { name: "minute", plural: "minutes", min: 0, max: 59 },
  { name: "hour", plural: "hours", min: 0, max: 23 },
  { name: "day of month", plural: "days of the month", min: 1, max: 31, extra: /^(L|L?W|\d{1,2}W|\?)$/i },
  {
    name: "month",
    plural: "months",
    min: 1,
    max: 12,
    names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
  },
  {
    name: "weekday",
    plural: "weekdays",
    min: 0,
    max: 7,
    names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"],
    extra: /^(\d?L|\d#\d|\?)$/i,
  },
] as const;

const EXAMPLE = "e.g. 0 3 * * * for 03:00 every day";

/** One value of a field (a number, or a month's or weekday's name) as its number; null when it is neither. */
function cronValue(text: string, field: (typeof CRON_FIELDS)[number]): number | null {
  if (/^\d+$/.test(text)) return Number(text);
  const named = "names" in field ? (field.names as readonly string[]).indexOf(text.toUpperCase()) : -1;
  return named < 0 ? null : named + ("names" in field && field.name === "month" ? 1 : 0);
}

/** What is wrong with one comma-separated part of a field ("61", "5-1", "x/0"), in words; null when it reads. */
function cronPartProblem(part: string, field: (typeof CRON_FIELDS)[number]): string | null {
  if ("extra" in field && field.extra.test(part)) return null;
  const match = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(\d+))?$/.exec(part);
  if (!match) return `the ${field.name} field's "${part}" is not a value, a range (1-5) or a step (*/15)`;
  const [, range, step] = match;
  if (step !== undefined && Number(step) === 0)
    return `the ${field.name} field's step of 0 never repeats: use */1, or leave the step out`;
  if (range === "*") return null;
  const [from, to] = range!.split("-").map((value) => ({ text: value, number: cronValue(value, field) }));
  for (const end of [from, to]) {
    if (!end) continue;
    if (end.number === null) return `the ${field.name} field's "${end.text}" is not a ${field.name}`;
    if (end.number < field.min || end.number > field.max)
      return `${field.name} ${end.text} is out of range: ${field.plural} go from ${field.min} to ${field.max}`;
  }
  if (to && from!.number! > to.number!)
    return `the ${field.name} range ${range} goes backwards: write the smaller end first`;
  return null;
}

/** What is wrong with a cron schedule, in this form's words (never the cron library's); null when each field reads. */
export function cronProblem(cron: string): string | null {
  const fields = cron.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== CRON_FIELDS.length)
    return `a schedule has five fields (minute hour day-of-month month weekday), and this has ${fields.length}: ${EXAMPLE}`;
  for (const [index, text] of fields.entries()) {
    for (const part of text.split(",")) {
      const problem = cronPartProblem(part, CRON_FIELDS[index]!);
      if (problem) return problem;
    }
  }
  return null;
}

/** The next `count` times a schedule fires, or a field error naming what is wrong with it. */
export function nextRuns(cron: string, timezone: string, from: Date, count = 3): string[] {
  try {
    new Intl.DateTimeFormat("en", { timeZone: timezone });
  } catch {
    throw new ThrongError(
      "validation_failed",
      `timezone: "${timezone}" is not a time zone; use an IANA name such as UTC or Europe/Berlin`,
      [{ path: "timezone", message: "not a time zone: use an IANA name such as UTC or Europe/Berlin" }],
    );
  }
  const refuse = (problem: string) =>
    new ThrongError("validation_failed", `cron: ${problem}`, [{ path: "cron", message: problem }]);
  const problem = cronProblem(cron);
  if (problem) throw refuse(problem);
  try {
    return CronExpressionParser.parse(cron, { tz: timezone, currentDate: from, strict: false })
      .take(count)
      .map((date) => date.toDate().toISOString());
  } catch {
    // Every field reads, yet the library finds no time it fires (31 February) or cannot read it: its own words are not ours.
    throw refuse(
      `this schedule never fires (a day the month does not have, such as 31 February?) or cannot be read: ${EXAMPLE}`,
    );
  }
}

/**
 * Plan schedules: a plan runs whenever its cron expression fires (BullMQ's job scheduler in the workers produces
 * the jobs). Each fired job starts a run as the user who set the schedule, so their role still applies.
 */
export function createPlanScheduleService(deps: {
  repos: Repos;
  jobs: Jobs;
  clock: Clock;
  log: Log;
  /** Who set or stopped a schedule, and (the workers' part) a firing that started no run. */
  audit?: Pick<AuditLog, "record">;
  /** The workers' part (firing): starting the run, and saying so in the org's channels when it cannot. */
  runs?: Pick<RunService, "create">;
  notifications?: Pick<NotificationService, "scheduleFailed">;
}) {
  const { repos, jobs, clock, log } = deps;

  /** The next `count` firings of a stored schedule: none while paused. */
  const upcoming = (row: PlanScheduleRow, count: number) =>
    row.pausedAt ? [] : nextRuns(row.cron, row.timezone, new Date(clock.now()), count);
  const lastAttemptOf = (row: PlanScheduleRow) =>
    row.lastAttemptAt ? { at: row.lastAttemptAt.toISOString(), runId: row.lastRunId, error: row.lastError } : null;

  const view = (row: PlanScheduleRow | undefined): PlanScheduleView => ({
    schedule: row
      ? {
          cron: row.cron,
          inWords: cronInWords(row.cron),
          timezone: row.timezone,
          nextRuns: upcoming(row, 3),
          pausedAt: row.pausedAt?.toISOString() ?? null,
          updatedAt: row.updatedAt.toISOString(),
          lastAttempt: lastAttemptOf(row),
        }
      : null,
  });

  const orgView = (row: OrgScheduleRow): OrgScheduleView => {
    const outcome = VerdictOutcome.safeParse(row.lastRunOutcome);
    const attempt = lastAttemptOf(row);
    return {
      planId: row.planId,
      planName: row.planName,
      planArchived: row.planArchivedAt !== null,
      cron: row.cron,
      inWords: cronInWords(row.cron),
      timezone: row.timezone,
      pausedAt: row.pausedAt?.toISOString() ?? null,
      nextRun: upcoming(row, 1)[0] ?? null,
      lastAttempt: attempt && {
        ...attempt,
        run: row.lastRunStatus ? { status: row.lastRunStatus, outcome: outcome.success ? outcome.data : null } : null,
      },
      updatedAt: row.updatedAt.toISOString(),
    };
  };

  /** Pauses or resumes a plan's schedule: its row says so, and its job scheduler goes or comes back. */
  async function setPaused(actor: Actor, planId: string, paused: boolean): Promise<PlanScheduleView> {
    authorize(actor, "run.start");
    const plan = await planOf(actor, planId);
    const current = await repos.planSchedules.get(actor.orgId, planId);
    if (!current)
      throw new ThrongError(
        "not_found",
        `The plan "${plan.name}" has no schedule to ${paused ? "pause" : "resume"}: set one on the plan's page first`,
      );
    if (Boolean(current.pausedAt) === paused) return view(current);
    if (!paused)
      checkPlanAgainstSettings(plan.spec, OrgSettings.parse((await repos.orgs.getSettings(actor.orgId)) ?? {}));
    const row = await repos.planSchedules.setPaused(actor.orgId, planId, paused ? actor.userId : null);
    if (paused) await jobs.unschedulePlan(planId);
    else await jobs.schedulePlan({ orgId: actor.orgId, planId }, current.cron, current.timezone);
    await deps.audit?.record(actor.orgId, actor.label, paused ? "schedule.paused" : "schedule.resumed", planId, {
      name: plan.name,
      cron: current.cron,
      timezone: current.timezone,
    });
    return view(row);
  }

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
    /** Every schedule of the organisation (the Schedules page): next firing, last firing and its run's verdict. */
    async list(actor: Actor): Promise<OrgScheduleView[]> {
      authorize(actor, "plan.read");
      return (await repos.planSchedules.listOrg(actor.orgId)).map(orgView);
    },

    /** Each scheduled plan's next firing (the Plans list), by plan id; no actor: the plan service has checked it. */
    async nextByPlan(orgId: string): Promise<Map<string, NextScheduledRun>> {
      const rows = await repos.planSchedules.listOrg(orgId);
      return new Map(
        rows.map((row) => [
          row.planId,
          { at: upcoming(row, 1)[0] ?? null, timezone: row.timezone, paused: row.pausedAt !== null },
        ]),
      );
    },

    pause: (actor: Actor, planId: string) => setPaused(actor, planId, true),
    resume: (actor: Actor, planId: string) => setPaused(actor, planId, false),

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
      checkPlanAgainstSettings(plan.spec, OrgSettings.parse((await repos.orgs.getSettings(actor.orgId)) ?? {}));
      const row = await repos.planSchedules.upsert(actor.orgId, { planId, cron, timezone, createdBy: actor.userId });
      // A paused schedule stays paused when changed: it fires again only when someone resumes it.
      if (!row.pausedAt) await jobs.schedulePlan({ orgId: actor.orgId, planId }, cron, timezone);
      await deps.audit?.record(actor.orgId, actor.label, "schedule.set", planId, { name: plan.name, cron, timezone });
      return view(row);
    },

    async remove(actor: Actor, planId: string): Promise<void> {
      authorize(actor, "run.start");
      const plan = await planOf(actor, planId);
      const schedule = await repos.planSchedules.get(actor.orgId, planId);
      await repos.planSchedules.remove(actor.orgId, planId);
      await jobs.unschedulePlan(planId);
      if (schedule)
        await deps.audit?.record(actor.orgId, actor.label, "schedule.removed", planId, {
          name: plan.name,
          cron: schedule.cron,
          timezone: schedule.timezone,
        });
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
      // Paused since this job was produced: it starts nothing (pausing removed the scheduler; a resume may be re-adding it).
      if (schedule.pausedAt) return null;
      if (!deps.runs) throw new Error("plan schedules fire in the workers, which give the service their run service");
      if (plan.archivedAt) return notStarted(orgId, plan, "the plan is archived: restore it, or remove its schedule");
      const role = Role.safeParse((await repos.orgs.membership(schedule.createdBy, orgId))?.role);
      if (!role.success)
        return notStarted(
          orgId,
          plan,
          "whoever set the schedule is no longer a member of the organisation: set the schedule again",
        );
      const actor: Actor = { orgId, userId: schedule.createdBy, role: role.data, label: "schedule", via: "api-token" };
      try {
        const run = await deps.runs.create(actor, planId);
        await repos.planSchedules.recordAttempt(orgId, planId, {
          at: new Date(clock.now()),
          runId: run.id,
          error: null,
        });
        return run.id;
      } catch (error) {
        if (!(error instanceof ThrongError)) throw error; // the database or Redis: the queue retries the job
        return notStarted(orgId, plan, error.message);
      }
    },
  };
}
export type PlanScheduleService = ReturnType<typeof createPlanScheduleService>;
