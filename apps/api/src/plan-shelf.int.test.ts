import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlanView } from "@throng/protocol/api";
import { ErrorBody } from "@throng/protocol/errors";
import type { RunView } from "@throng/protocol/run";
import { enrolTestAgent, type TestAgent } from "./testing/test-agent";
import { startTestApi, type TestApi, type TestUser } from "./testing/test-api";
import { pingPlan } from "./testing/plans";

const spec = (name: string) => ({ ...pingPlan, name });

let api: TestApi;
const agents: TestAgent[] = [];
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await Promise.all(agents.map((agent) => (agent.ws.readyState === agent.ws.OPEN ? agent.close() : undefined)));
  await api?.close();
});

async function savePlan(user: TestUser, name: string): Promise<PlanView> {
  return PlanView.parse((await user.request("POST", "/api/plans", spec(name))).json);
}
const names = async (user: TestUser, query = "") =>
  (await user.request<{ plans: PlanView[] }>("GET", `/api/plans${query}`)).json.plans.map((p) => p.name).sort();

describe("archiving and deleting plans", () => {
  it("hides an archived plan from the list unless asked for, keeps it readable, and restores it", async () => {
    const user = await api.signUp("Arch");
    await savePlan(user, "kept");
    const old = await savePlan(user, "old");
    const archived = await user.request("POST", `/api/plans/${old.id}/archive`);
    expect(archived.status).toBe(200);
    expect(PlanView.parse(archived.json).archivedAt).toEqual(expect.any(String));
    expect(await names(user)).toEqual(["kept"]);
    expect(await names(user, "?shelf=archived")).toEqual(["old"]);
    expect(await names(user, "?shelf=all")).toEqual(["kept", "old"]);
    expect(PlanView.parse((await user.request("GET", `/api/plans/${old.id}`)).json).archivedAt).toBeDefined();

    const restored = await user.request("POST", `/api/plans/${old.id}/restore`);
    expect(PlanView.parse(restored.json).archivedAt).toBeUndefined();
    expect(await names(user)).toEqual(["kept", "old"]);
  });

  it("answers 400 naming the query field for an unknown shelf", async () => {
    const user = await api.signUp("Shelf");
    const answer = await user.request("GET", "/api/plans?shelf=bin");
    expect(answer.status).toBe(400);
    expect(ErrorBody.parse(answer.json).error.message).toMatch(/shelf/);
  });

  it("deletes a plan that never ran; one with runs is refused (409, archive it instead) and its run is untouched", async () => {
    const user = await api.signUp("Del");
    const unused = await savePlan(user, "unused");
    expect((await user.request("DELETE", `/api/plans/${unused.id}`)).status).toBe(204);
    expect((await user.request("GET", `/api/plans/${unused.id}`)).status).toBe(404);
    expect((await user.request("DELETE", `/api/plans/${unused.id}`)).status).toBe(404);

    const { agent } = await enrolTestAgent(api.gatewayUrl, user);
    agents.push(agent);
    const ran = await savePlan(user, "ran");
    const run = await user.request<RunView>("POST", `/api/plans/${ran.id}/runs`);
    expect(run.status).toBe(201);
    const refused = await user.request("DELETE", `/api/plans/${ran.id}`);
    expect(refused.status).toBe(409);
    expect(ErrorBody.parse(refused.json).error.message).toMatch(
      /has 1 run, which would go with it: archive it instead/,
    );
    expect((await user.request("GET", `/api/runs/${run.json.id}`)).json).toMatchObject({
      planId: ran.id,
      spec: { name: "ran" },
    });
  });

  it("keeps each organisation's plans to itself: another org cannot archive or delete them", async () => {
    const owner = await api.signUp("Own");
    const other = await api.signUp("Other");
    const plan = await savePlan(owner, "mine");
    expect((await other.request("POST", `/api/plans/${plan.id}/archive`)).status).toBe(404);
    expect((await other.request("DELETE", `/api/plans/${plan.id}`)).status).toBe(404);
    expect(await names(owner)).toEqual(["mine"]);
  });
});
