import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlanView } from "@throng/protocol/api";
import { ErrorBody } from "@throng/protocol/errors";
import { RunJobName } from "@throng/protocol/jobs";
import { PlanScheduleView } from "@throng/protocol/plan-schedule";
import type { RunPage } from "@throng/protocol/run-list";
import type { AuditEntry } from "@throng/protocol/orgs";
import type { NotificationDeliveryView } from "@throng/protocol/notifications";
import { scheduleId } from "@throng/runtime/jobs";
import { enrolTestAgent, type TestAgent } from "../apps/api/src/testing/test-agent";
import { startTestApi, type TestApi } from "../apps/api/src/testing/test-api";
import { startScheduleWorkers, unrunPlan } from "./support/schedule-workers";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver";

/**
 * Plan schedules (issue 18): the API stores the schedule and registers the plan's BullMQ job scheduler (real Redis);
 * the job it produces, processed by the real workers, starts a run of the plan as whoever set the schedule.
 * The scheduler's own timing is BullMQ's: this test adds the job the scheduler would add rather than wait a minute.
 */
const spec = unrunPlan("nightly");

let api: TestApi;
let workers: ReturnType<typeof startScheduleWorkers>;
const agents: TestAgent[] = [];
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  api = await startTestApi();
  workers = startScheduleWorkers(api);
});
afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.close()));
  await receiver?.close();
  await workers?.close();
  await api?.close();
});

describe("plan schedules", () => {
  it("sets a schedule (its BullMQ job scheduler with the cron and zone), fires it into a run of the plan, and removes it", async () => {
    const user = await api.signUp("Sched");
    const {
      agent,
      ready: { orgId },
    } = await enrolTestAgent(api.gatewayUrl, user);
    agents.push(agent);
    const plan = PlanView.parse((await user.request("POST", "/api/plans", spec)).json);

    const bad = await user.request("PUT", `/api/plans/${plan.id}/schedule`, { cron: "0 25 * * *" });
    expect(bad.status).toBe(400);
    expect(ErrorBody.parse(bad.json).error.fields?.[0]?.path).toBe("cron");

    const set = await user.request("PUT", `/api/plans/${plan.id}/schedule`, {
      cron: "0 3 * * 1-5",
      timezone: "Europe/Berlin",
    });
    expect(set.status).toBe(200);
    const { schedule } = PlanScheduleView.parse(set.json);
    expect(schedule).toMatchObject({ cron: "0 3 * * 1-5", timezone: "Europe/Berlin" });
    expect(schedule!.nextRuns).toHaveLength(3);
    expect(await api.queue.getJobScheduler(scheduleId(plan.id))).toMatchObject({
      pattern: "0 3 * * 1-5",
      tz: "Europe/Berlin",
      name: RunJobName.scheduledRun,
    });
    expect(
      PlanScheduleView.parse((await user.request("GET", `/api/plans/${plan.id}/schedule`)).json).schedule?.cron,
    ).toBe("0 3 * * 1-5");

    // What the scheduler adds when the schedule fires; the workers start a run of the plan.
    await api.queue.add(RunJobName.scheduledRun, { orgId, planId: plan.id });
    await expect
      .poll(
        async () =>
          (await user.request<RunPage>("GET", "/api/runs")).json.runs.filter((run) => run.planId === plan.id).length,
        { timeout: 10_000 },
      )
      .toBe(1);
    // The plan page's schedule says what its last firing did: this run.
    const [started] = (await user.request<RunPage>("GET", "/api/runs")).json.runs.filter(
      (run) => run.planId === plan.id,
    );
    expect(
      PlanScheduleView.parse((await user.request("GET", `/api/plans/${plan.id}/schedule`)).json).schedule?.lastAttempt,
    ).toMatchObject({ runId: started!.id, error: null });

    expect((await user.request("DELETE", `/api/plans/${plan.id}/schedule`)).status).toBe(204);
    expect(
      PlanScheduleView.parse((await user.request("GET", `/api/plans/${plan.id}/schedule`)).json).schedule,
    ).toBeNull();
    expect(await api.queue.getJobScheduler(scheduleId(plan.id))).toBeUndefined();
    // A job already produced before the removal starts nothing.
    await api.queue.add(RunJobName.scheduledRun, { orgId, planId: plan.id });
    await expect
      .poll(async () => (await api.queue.getJobCounts("completed")).completed, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);
    expect(
      (await user.request<RunPage>("GET", "/api/runs")).json.runs.filter((run) => run.planId === plan.id),
    ).toHaveLength(1);
  }, 60_000);

  it("a firing that cannot start a run says why: on the plan's schedule, to the org's channels (webhook and Slack) and in the audit log", async () => {
    const user = await api.signUp("Unstarted");
    const plan = PlanView.parse(
      (await user.request("POST", "/api/plans", { ...spec, name: "nightly without agents" })).json,
    );
    for (const kind of ["webhook", "slack"]) {
      expect(
        (
          await user.request("POST", "/api/notification-channels", {
            kind,
            name: kind,
            url: `${receiver.url}/${plan.id}/${kind}`,
            events: ["failed"],
          })
        ).status,
      ).toBe(201);
    }
    expect((await user.request("PUT", `/api/plans/${plan.id}/schedule`, { cron: "0 3 * * *" })).status).toBe(200);
    const orgId = (
      await api.db.selectFrom("plans").select("org_id").where("id", "=", plan.id).executeTakeFirstOrThrow()
    ).org_id;
    const lastAttempt = async () =>
      PlanScheduleView.parse((await user.request("GET", `/api/plans/${plan.id}/schedule`)).json).schedule
        ?.lastAttempt ?? null;
    expect(await lastAttempt()).toBeNull();

    // No agent of this organisation is online: the run service refuses, and the schedule keeps its words.
    await api.queue.add(RunJobName.scheduledRun, { orgId, planId: plan.id });
    await expect.poll(lastAttempt, { timeout: 10_000 }).not.toBeNull();
    const refused = (await lastAttempt())!;
    expect(refused.runId).toBeNull();
    expect(refused.error).toMatch(/agent/i);
    expect(
      (await user.request<RunPage>("GET", "/api/runs")).json.runs.filter((run) => run.planId === plan.id),
    ).toHaveLength(0);

    // Each channel gets a real POST from the workers: our JSON on the webhook, Slack's { text } on the other.
    const sent = (kind: string) => receiver.received.filter((request) => request.path === `/${plan.id}/${kind}`);
    await expect.poll(() => sent("webhook").length + sent("slack").length, { timeout: 10_000 }).toBe(2);
    expect(sent("webhook")[0]!.body).toMatchObject({
      event: "schedule-failed",
      run: null,
      schedule: {
        planId: plan.id,
        planName: "nightly without agents",
        reason: refused.error,
        url: `http://localhost:3000/plans/${plan.id}`,
      },
    });
    expect((sent("slack")[0]!.body as { text: string }).text).toBe(
      `Scheduled run of "nightly without agents" did not start: ${refused.error}. http://localhost:3000/plans/${plan.id}`,
    );
    const log = (await user.request<{ deliveries: NotificationDeliveryView[] }>("GET", "/api/notification-deliveries"))
      .json.deliveries as {
      event: string;
      planId: string;
      status: string;
    }[];
    expect(
      log
        .filter((delivery) => delivery.event === "schedule-failed")
        .map((delivery) => [delivery.planId, delivery.status]),
    ).toEqual([
      [plan.id, "delivered"],
      [plan.id, "delivered"],
    ]);

    const audit = (await user.request<{ entries: AuditEntry[] }>("GET", "/api/audit")).json.entries as {
      action: string;
      actor: string;
      target: string;
      details: Record<string, unknown>;
    }[];
    expect(audit.filter((entry) => entry.action === "schedule.run-not-started")).toEqual([
      expect.objectContaining({
        actor: "schedule",
        target: plan.id,
        details: { name: "nightly without agents", reason: refused.error },
      }),
    ]);

    // An archived plan is another reason, said as such (and replaces the last attempt).
    expect((await user.request("POST", `/api/plans/${plan.id}/archive`)).status).toBe(200);
    await api.queue.add(RunJobName.scheduledRun, { orgId, planId: plan.id });
    await expect.poll(async () => (await lastAttempt())?.error, { timeout: 10_000 }).toMatch(/^the plan is archived/);
    await expect.poll(() => sent("webhook").length, { timeout: 10_000 }).toBe(2);
  }, 60_000);
});
