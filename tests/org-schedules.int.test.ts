import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlanView } from "@throng/protocol/api";
import type { ErrorBody } from "@throng/protocol/errors";
import { type AuditEntry, InvitationCreated } from "@throng/protocol/orgs";
import { RunJobName } from "@throng/protocol/jobs";
import { OrgSchedulesView, PlanScheduleView } from "@throng/protocol/plan-schedule";
import type { RunPage } from "@throng/protocol/run-list";
import { scheduleId } from "@throng/runtime/jobs";
import { enrolTestAgent, type TestAgent } from "../apps/api/src/testing/test-agent";
import { startTestApi, type TestApi, type TestUser } from "../apps/api/src/testing/test-api";
import { startScheduleWorkers, unrunPlan } from "./support/schedule-workers";

/**
 * The organisation's Schedules page's API (issue 28 §3): GET /api/schedules lists every schedule of the caller's
 * organisation only, with its next firing (computed in the schedule's own zone, across a DST change: the schedules'
 * clock is pinned to 24 October 2026, the night before Berlin leaves summer time) and its last firing's run and
 * verdict; a schedule pauses and resumes (its BullMQ job scheduler goes and comes back, a job produced meanwhile starts
 * nothing), for those the permission matrix allows, in the audit log; the Plans list carries each plan's next run.
 */
const NOW = Date.parse("2026-10-24T00:30:00Z");

let api: TestApi;
let workers: ReturnType<typeof startScheduleWorkers>;
const agents: TestAgent[] = [];

beforeAll(async () => {
  api = await startTestApi({ scheduleClock: { now: () => NOW } });
  workers = startScheduleWorkers(api);
});
afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.close()));
  await workers?.close();
  await api?.close();
});

const planOf = async (user: TestUser, name: string) =>
  PlanView.parse((await user.request("POST", "/api/plans", unrunPlan(name))).json);
const schedulesOf = async (user: TestUser) => {
  const answer = await user.request("GET", "/api/schedules");
  expect(answer.status).toBe(200);
  return OrgSchedulesView.parse(answer.json).schedules;
};
const orgIdOf = async (planId: string) =>
  (await api.db.selectFrom("plans").select("org_id").where("id", "=", planId).executeTakeFirstOrThrow()).org_id;

describe("the organisation's schedules", () => {
  it("lists only the caller's organisation's schedules, each with its next firing in its own zone across a DST change", async () => {
    const owner = await api.signUp("SchedOwner");
    const other = await api.signUp("SchedOther");
    const nightly = await planOf(owner, "nightly Berlin");
    const quarterly = await planOf(owner, "every quarter hour");
    await planOf(owner, "never scheduled");
    const theirs = await planOf(other, "their nightly");
    expect(
      (
        await owner.request("PUT", `/api/plans/${nightly.id}/schedule`, {
          cron: "0 3 * * *",
          timezone: "Europe/Berlin",
        })
      ).status,
    ).toBe(200);
    expect(
      (await owner.request("PUT", `/api/plans/${quarterly.id}/schedule`, { cron: "*/15 * * * *", timezone: "UTC" }))
        .status,
    ).toBe(200);
    expect(
      (
        await other.request("PUT", `/api/plans/${theirs.id}/schedule`, {
          cron: "0 4 * * 1-5",
          timezone: "America/New_York",
        })
      ).status,
    ).toBe(200);

    const mine = await schedulesOf(owner);
    expect(mine.map((schedule) => schedule.planName)).toEqual(["every quarter hour", "nightly Berlin"]);
    // 03:00 in Berlin is 01:00 UTC in summer time (24 October) and 02:00 UTC once the clocks go back (25 October).
    expect(mine[1]).toMatchObject({
      planId: nightly.id,
      cron: "0 3 * * *",
      inWords: "every day at 03:00",
      timezone: "Europe/Berlin",
      nextRun: "2026-10-24T01:00:00.000Z",
      pausedAt: null,
      lastAttempt: null,
      planArchived: false,
    });
    expect(
      PlanScheduleView.parse((await owner.request("GET", `/api/plans/${nightly.id}/schedule`)).json).schedule?.nextRuns,
    ).toEqual(["2026-10-24T01:00:00.000Z", "2026-10-25T02:00:00.000Z", "2026-10-26T02:00:00.000Z"]);
    expect(mine[0]).toMatchObject({ inWords: "every 15 minutes", nextRun: "2026-10-24T00:45:00.000Z" });
    // The other organisation sees its own schedule only; neither sees the other's.
    expect((await schedulesOf(other)).map((schedule) => [schedule.planId, schedule.inWords, schedule.nextRun])).toEqual(
      [[theirs.id, "at 04:00, Monday to Friday", "2026-10-26T08:00:00.000Z"]],
    );

    // The Plans list: each plan's next scheduled run, null for the plan with no schedule.
    const plans = ((await owner.request<{ plans: PlanView[] }>("GET", "/api/plans")).json.plans as unknown[]).map(
      (plan) => PlanView.parse(plan),
    );
    expect(Object.fromEntries(plans.map((plan) => [plan.name, plan.nextScheduledRun]))).toEqual({
      "nightly Berlin": { at: "2026-10-24T01:00:00.000Z", timezone: "Europe/Berlin", paused: false },
      "every quarter hour": { at: "2026-10-24T00:45:00.000Z", timezone: "UTC", paused: false },
      "never scheduled": null,
    });

    // Another organisation cannot pause or resume this one's schedule: no such plan, as for any other id.
    expect((await other.request("POST", `/api/plans/${nightly.id}/schedule/pause`)).status).toBe(404);
    expect((await other.request("POST", `/api/plans/${nightly.id}/schedule/resume`)).status).toBe(404);
    expect((await schedulesOf(owner)).every((schedule) => schedule.pausedAt === null)).toBe(true);
  }, 60_000);

  it("pauses and resumes a schedule for whoever may start runs (its job scheduler goes and comes back), in the audit log; a viewer may not", async () => {
    const owner = await api.signUp("PauseOwner");
    const viewer = await api.signUp("PauseViewer");
    await viewer.request("POST", "/api/invitations/accept", {
      token: InvitationCreated.parse((await owner.request("POST", "/api/invitations", { role: "viewer" })).json).token,
    });
    const plan = await planOf(owner, "paused nightly");
    expect(
      (await owner.request("PUT", `/api/plans/${plan.id}/schedule`, { cron: "0 3 * * *", timezone: "Europe/Berlin" }))
        .status,
    ).toBe(200);

    expect((await viewer.request("POST", `/api/plans/${plan.id}/schedule/pause`)).status).toBe(403);
    expect((await schedulesOf(viewer)).map((schedule) => schedule.planId)).toEqual([plan.id]);

    const paused = await owner.request("POST", `/api/plans/${plan.id}/schedule/pause`);
    expect(paused.status).toBe(200);
    expect(PlanScheduleView.parse(paused.json).schedule).toMatchObject({
      cron: "0 3 * * *",
      pausedAt: expect.any(String),
      nextRuns: [],
    });
    expect(await api.queue.getJobScheduler(scheduleId(plan.id))).toBeUndefined();
    expect((await schedulesOf(owner))[0]).toMatchObject({ pausedAt: expect.any(String), nextRun: null });
    expect(PlanView.parse((await owner.request("GET", `/api/plans/${plan.id}`)).json).nextScheduledRun).toEqual({
      at: null,
      timezone: "Europe/Berlin",
      paused: true,
    });
    // Changing a paused schedule keeps it paused: it fires only once someone resumes it.
    expect(
      PlanScheduleView.parse(
        (await owner.request("PUT", `/api/plans/${plan.id}/schedule`, { cron: "0 4 * * *", timezone: "Europe/Berlin" }))
          .json,
      ).schedule?.pausedAt,
    ).not.toBeNull();
    expect(await api.queue.getJobScheduler(scheduleId(plan.id))).toBeUndefined();

    const resumed = await owner.request("POST", `/api/plans/${plan.id}/schedule/resume`);
    expect(resumed.status).toBe(200);
    expect(PlanScheduleView.parse(resumed.json).schedule).toMatchObject({
      pausedAt: null,
      nextRuns: ["2026-10-24T02:00:00.000Z", "2026-10-25T03:00:00.000Z", "2026-10-26T03:00:00.000Z"],
    });
    expect(await api.queue.getJobScheduler(scheduleId(plan.id))).toMatchObject({
      pattern: "0 4 * * *",
      tz: "Europe/Berlin",
    });

    const audit = (await owner.request<{ entries: AuditEntry[] }>("GET", "/api/audit")).json.entries as {
      action: string;
      target: string;
      details: Record<string, unknown>;
    }[];
    expect(
      audit
        .filter((entry) => entry.action.startsWith("schedule."))
        .map((entry) => entry.action)
        .sort(),
    ).toEqual(["schedule.paused", "schedule.resumed", "schedule.set", "schedule.set"]);
    expect(audit.find((entry) => entry.action === "schedule.paused")).toMatchObject({
      target: plan.id,
      details: { name: "paused nightly", cron: "0 3 * * *", timezone: "Europe/Berlin" },
    });
    // A plan with no schedule has nothing to pause, and says where to set one.
    const bare = await planOf(owner, "bare");
    const refused = await owner.request<ErrorBody>("POST", `/api/plans/${bare.id}/schedule/pause`);
    expect(refused.status).toBe(404);
    expect(refused.json.error.message).toMatch(/has no schedule to pause: set one on the plan's page/);
  }, 60_000);

  it("a job the scheduler produced before a pause starts nothing; a firing's run shows on the list with its status and, once judged, its verdict", async () => {
    const owner = await api.signUp("FireOwner");
    const { agent } = await enrolTestAgent(api.gatewayUrl, owner);
    agents.push(agent);
    const plan = await planOf(owner, "fired nightly");
    const orgId = await orgIdOf(plan.id);
    expect(
      (await owner.request("PUT", `/api/plans/${plan.id}/schedule`, { cron: "0 3 * * *", timezone: "Europe/Berlin" }))
        .status,
    ).toBe(200);
    const runsOfPlan = async () =>
      (await owner.request<RunPage>("GET", "/api/runs")).json.runs.filter((run) => run.planId === plan.id);

    expect((await owner.request("POST", `/api/plans/${plan.id}/schedule/pause`)).status).toBe(200);
    const completedBefore = (await api.queue.getJobCounts("completed")).completed ?? 0;
    await api.queue.add(RunJobName.scheduledRun, { orgId, planId: plan.id });
    await expect
      .poll(async () => (await api.queue.getJobCounts("completed")).completed, { timeout: 10_000 })
      .toBeGreaterThan(completedBefore);
    expect(await runsOfPlan()).toHaveLength(0);
    expect((await schedulesOf(owner))[0]!.lastAttempt).toBeNull();

    expect((await owner.request("POST", `/api/plans/${plan.id}/schedule/resume`)).status).toBe(200);
    await api.queue.add(RunJobName.scheduledRun, { orgId, planId: plan.id });
    await expect.poll(async () => (await runsOfPlan()).length, { timeout: 10_000 }).toBe(1);
    const [run] = await runsOfPlan();
    await expect
      .poll(async () => (await schedulesOf(owner))[0]!.lastAttempt, { timeout: 10_000 })
      .toMatchObject({ runId: run!.id, error: null, run: { status: "queued", outcome: null } });

    // Once judged, the list carries the run's verdict (written here as the finish job stores it).
    await api.db
      .updateTable("runs")
      .set({
        status: "finished",
        ended_at: new Date(),
        verdict: JSON.stringify({ passed: false, outcome: "breached", reasons: [] }),
      })
      .where("id", "=", run!.id)
      .execute();
    expect((await schedulesOf(owner))[0]!.lastAttempt?.run).toEqual({ status: "finished", outcome: "breached" });
  }, 60_000);
});
