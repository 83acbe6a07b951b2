// A plan's pinned baseline (issue 28 §3): PUT/DELETE /api/plans/:id/baseline pins one of the plan's own finished
// runs, PlanView carries it, and a run of another plan, one not finished or one of another organisation is refused
// with an answer that says why.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRepos } from "@throng/db/repos";
import { Me, PlanView } from "@throng/protocol/api";
import { ErrorBody } from "@throng/protocol/errors";
import { startTestApi, type TestApi, type TestUser } from "./testing/test-api";
import { pingPlan } from "./testing/plans";
import { PlanSpec } from "@throng/protocol/plan";

const spec = (name: string) => ({ ...pingPlan, name });

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
});

async function savePlan(user: TestUser, name: string): Promise<PlanView> {
  return PlanView.parse((await user.request("POST", "/api/plans", spec(name))).json);
}

/** A run of `plan` stored as it would be in `status`, without an agent. */
async function storedRun(user: TestUser, plan: PlanView, status: string): Promise<string> {
  const orgId = Me.parse((await user.request<Me>("GET", "/api/me")).json).organization.id;
  const id = crypto.randomUUID();
  await createRepos(api.db).runs.insert(orgId, {
    id,
    planId: plan.id,
    spec: PlanSpec.parse(spec(plan.name)),
    status: "queued",
  });
  await api.db.updateTable("runs").set({ status }).where("id", "=", id).execute();
  return id;
}

/** A new user (named `name`) of a new organisation, with one saved plan, "lobby". */
async function userWithPlan(name: string) {
  const user = await api.signUp(name);
  return { user, plan: await savePlan(user, "lobby") };
}

const message = (answer: { json: unknown }) => ErrorBody.parse(answer.json).error.message;

describe("a plan's baseline", () => {
  it("pins one of the plan's finished runs, shows it on the plan and in the list, replaces it, and unpins it", async () => {
    const { user, plan } = await userWithPlan("Pinner");
    expect(plan.baselineRunId).toBeNull();
    const first = await storedRun(user, plan, "finished");
    const second = await storedRun(user, plan, "finished");

    const pinned = await user.request("PUT", `/api/plans/${plan.id}/baseline`, { runId: first });
    expect(pinned.status, JSON.stringify(pinned.json)).toBe(200);
    expect(PlanView.parse(pinned.json).baselineRunId).toBe(first);
    expect(PlanView.parse((await user.request("GET", `/api/plans/${plan.id}`)).json).baselineRunId).toBe(first);
    expect(
      (await user.request<{ plans: PlanView[] }>("GET", "/api/plans")).json.plans.find((p) => p.id === plan.id)
        ?.baselineRunId,
    ).toBe(first);

    expect(
      PlanView.parse((await user.request("PUT", `/api/plans/${plan.id}/baseline`, { runId: second })).json)
        .baselineRunId,
    ).toBe(second);
    // A new version of the plan keeps its baseline: CI saves one on every run (--plan-name).
    const saved = await user.request("PUT", "/api/plans/by-name", { name: "lobby", spec: spec("lobby") });
    expect(PlanView.parse(saved.json).baselineRunId).toBe(second);

    const unpinned = await user.request("DELETE", `/api/plans/${plan.id}/baseline`);
    expect(unpinned.status).toBe(200);
    expect(PlanView.parse(unpinned.json).baselineRunId).toBeNull();
  });

  it("refuses a run of another plan (409), one not finished (409), and an unknown run (404), saying why", async () => {
    const { user, plan } = await userWithPlan("Refused");
    const other = await savePlan(user, "chat");
    const othersRun = await storedRun(user, other, "finished");
    const aborted = await storedRun(user, plan, "aborted");
    const running = await storedRun(user, plan, "running");

    const ofOther = await user.request("PUT", `/api/plans/${plan.id}/baseline`, { runId: othersRun });
    expect(ofOther.status).toBe(409);
    expect(message(ofOther)).toMatch(/is a run of plan "chat", not of this plan/);
    for (const [runId, status] of [
      [aborted, "aborted"],
      [running, "running"],
    ] as const) {
      const answer = await user.request("PUT", `/api/plans/${plan.id}/baseline`, { runId });
      expect(answer.status).toBe(409);
      expect(message(answer)).toContain(`is ${status}, not finished`);
    }
    const unknown = await user.request("PUT", `/api/plans/${plan.id}/baseline`, { runId: crypto.randomUUID() });
    expect(unknown.status).toBe(404);
    expect(message(unknown)).toMatch(/^No run .* in this organisation/);
    expect(PlanView.parse((await user.request("GET", `/api/plans/${plan.id}`)).json).baselineRunId).toBeNull();
  });

  it("answers 400 naming runId for a body without a run id or with one that is not a UUID", async () => {
    const { user, plan } = await userWithPlan("BadBody");
    for (const body of [{}, { runId: "yesterday" }]) {
      const answer = await user.request("PUT", `/api/plans/${plan.id}/baseline`, body);
      expect(answer.status).toBe(400);
      expect(ErrorBody.parse(answer.json).error.fields?.[0]?.path).toBe("runId");
    }
  });

  it("keeps organisations apart: another org can neither pin its run on the plan nor pin or unpin the plan's", async () => {
    const owner = await api.signUp("Owner");
    const intruder = await api.signUp("Intruder");
    const plan = await savePlan(owner, "lobby");
    const run = await storedRun(owner, plan, "finished");
    const intrudersPlan = await savePlan(intruder, "mine");
    const intrudersRun = await storedRun(intruder, intrudersPlan, "finished");

    expect((await intruder.request("PUT", `/api/plans/${plan.id}/baseline`, { runId: intrudersRun })).status).toBe(404);
    expect((await intruder.request("PUT", `/api/plans/${intrudersPlan.id}/baseline`, { runId: run })).status).toBe(404);
    expect(
      PlanView.parse((await owner.request("PUT", `/api/plans/${plan.id}/baseline`, { runId: run })).json).baselineRunId,
    ).toBe(run);
    expect((await intruder.request("DELETE", `/api/plans/${plan.id}/baseline`)).status).toBe(404);
    expect(PlanView.parse((await owner.request("GET", `/api/plans/${plan.id}`)).json).baselineRunId).toBe(run);
  });

  it("is declared in the OpenAPI document with its request schema and its 404 and 409 answers", async () => {
    type Operation = {
      requestBody?: {
        required: boolean;
        content: Record<string, { schema: { required?: string[]; properties?: Record<string, unknown> } }>;
      };
      responses: Record<string, unknown>;
    };
    const paths = (
      (await (await fetch(`${api.url}/api/openapi.json`)).json()) as {
        paths: Record<string, Record<string, Operation>>;
      }
    ).paths;
    const put = paths["/api/plans/{id}/baseline"]!.put!;
    expect(put.requestBody?.required).toBe(true);
    const schema = put.requestBody!.content["application/json"]!.schema;
    expect(schema.required).toEqual(["runId"]);
    expect(schema.properties?.runId).toMatchObject({ type: "string", format: "uuid" });
    expect(Object.keys(put.responses)).toEqual(expect.arrayContaining(["200", "404", "409"]));
    expect(paths["/api/plans/{id}/baseline"]!.delete!.responses).toHaveProperty("200");
  });

  it("lists each plan with its most recent run that ended and that run's verdict, beside its baseline", async () => {
    const { user, plan } = await userWithPlan("Lister");
    const never = await savePlan(user, "never run");
    const older = await storedRun(user, plan, "finished");
    const newer = await storedRun(user, plan, "finished");
    await api.db
      .updateTable("runs")
      .set({ created_at: new Date(Date.now() - 60_000) })
      .where("id", "=", older)
      .execute();
    await api.db
      .updateTable("runs")
      .set({
        ended_at: new Date(),
        verdict: JSON.stringify({ passed: false, outcome: "breached", reasons: [], warnings: [], slos: [] }),
      })
      .where("id", "=", newer)
      .execute();
    await storedRun(user, plan, "running"); // still going: not the last verdict
    await user.request("PUT", `/api/plans/${plan.id}/baseline`, { runId: older });
    const listed = (await user.request<{ plans: PlanView[] }>("GET", "/api/plans")).json.plans;
    expect(listed.find((p) => p.id === plan.id)).toMatchObject({
      baselineRunId: older,
      lastRun: { id: newer, status: "finished", outcome: "breached", endedAt: expect.any(String) },
    });
    expect(listed.find((p) => p.id === never.id)).toMatchObject({ baselineRunId: null, lastRun: null });
  });

  it("forgets the baseline when its run is deleted", async () => {
    const { user, plan } = await userWithPlan("Forget");
    const run = await storedRun(user, plan, "finished");
    await user.request("PUT", `/api/plans/${plan.id}/baseline`, { runId: run });
    await api.db.deleteFrom("runs").where("id", "=", run).execute();
    expect(PlanView.parse((await user.request("GET", `/api/plans/${plan.id}`)).json).baselineRunId).toBeNull();
  });
});
