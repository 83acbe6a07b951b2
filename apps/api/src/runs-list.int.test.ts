// GET /api/runs filtered and paged by the database (issue 18): status, verdict outcome, plan, creation time,
// page and limit, each checked against runs stored with known values; who started a run; bad queries answer 400
// naming the field.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRepos } from "@throng/db/repos";
import { Me, PlanView } from "@throng/protocol/api";
import { ErrorBody } from "@throng/protocol/errors";
import { RunPage } from "@throng/protocol/run-list";
import type { RunView } from "@throng/protocol/run";
import { enrolTestAgent, type TestAgent } from "./testing/test-agent";
import { startTestApi, type TestApi, type TestUser } from "./testing/test-api";
import { pingPlan } from "./testing/plans";
import { PlanSpec } from "@throng/protocol/plan";

const spec = (name: string) => ({ ...pingPlan, name });

let api: TestApi;
let user: TestUser;
let agent: TestAgent | undefined;
const plans: PlanView[] = [];
/** Stored run ids, oldest first: 12 of plan A (every third breached, the rest passed), 3 of plan B (aborted). */
const stored: string[] = [];

const page = async (query = "") => {
  const answer = await user.request("GET", `/api/runs${query}`);
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return RunPage.parse(answer.json);
};

beforeAll(async () => {
  api = await startTestApi();
  user = await api.signUp("Lister");
  const orgId = Me.parse((await user.request<Me>("GET", "/api/me")).json).organization.id;
  for (const name of ["A", "B"])
    plans.push(PlanView.parse((await user.request("POST", "/api/plans", spec(name))).json));
  const repos = createRepos(api.db);
  const base = Date.UTC(2026, 0, 10, 12);
  for (let i = 0; i < 15; i++) {
    const id = crypto.randomUUID();
    const onB = i >= 12;
    await repos.runs.insert(orgId, {
      id,
      planId: plans[onB ? 1 : 0]!.id,
      spec: PlanSpec.parse(spec(onB ? "B" : "A")),
      status: "queued",
    });
    const outcome = onB ? "aborted" : i % 3 === 0 ? "breached" : "passed";
    await api.db
      .updateTable("runs")
      .set({
        status: onB ? "aborted" : "finished",
        created_at: new Date(base + i * 3_600_000),
        verdict: JSON.stringify({ passed: outcome === "passed", outcome, reasons: [], warnings: [], slos: [] }),
      })
      .where("id", "=", id)
      .execute();
    stored.push(id);
  }
});

afterAll(async () => {
  if (agent && agent.ws.readyState === agent.ws.OPEN) await agent.close();
  await api?.close();
});

describe("GET /api/runs", () => {
  it("pages newest first and says how many match over every page", async () => {
    const first = await page("?limit=5");
    expect(first).toMatchObject({ matching: 15, page: 1, pages: 3, limit: 5 });
    expect(first.runs.map((run) => run.id)).toEqual(stored.slice(-5).reverse());
    const last = await page("?limit=5&page=3");
    expect(last.runs.map((run) => run.id)).toEqual(stored.slice(0, 5).reverse());
    expect((await page("?limit=5&page=4")).runs).toEqual([]);
  });

  it("filters by status, verdict outcome and plan in the database", async () => {
    expect((await page("?status=aborted")).matching).toBe(3);
    const breached = await page("?outcome=breached");
    expect(breached.matching).toBe(4);
    expect(breached.runs.every((run) => run.verdict?.outcome === "breached")).toBe(true);
    expect((await page(`?plan=${plans[0]!.id}&outcome=passed`)).matching).toBe(8);
    expect((await page(`?plan=${plans[1]!.id}&status=finished`)).matching).toBe(0);
  });

  it("filters by creation time, from inclusive and before exclusive", async () => {
    const from = new Date(Date.UTC(2026, 0, 10, 14)).toISOString();
    const before = new Date(Date.UTC(2026, 0, 10, 17)).toISOString();
    const window = await page(`?createdFrom=${from}&createdBefore=${before}`);
    expect(window.runs.map((run) => run.id)).toEqual(stored.slice(2, 5).reverse());
  });

  it("answers 400 naming the field for a bad query, never a 500", async () => {
    for (const [query, field] of [
      ["?limit=0", "limit"],
      ["?limit=101", "limit"],
      ["?page=x", "page"],
      ["?outcome=meh", "outcome"],
      ["?plan=nope", "plan"],
      ["?createdFrom=yesterday", "createdFrom"],
      ["?sort=asc", "sort"],
    ] as const) {
      const answer = await user.request("GET", `/api/runs${query}`);
      expect(answer.status, query).toBe(400);
      expect(ErrorBody.parse(answer.json).error.message, query).toMatch(new RegExp(field));
    }
  });

  it("keeps each organisation's runs to itself", async () => {
    const other = await api.signUp("Stranger");
    const answer = await other.request<RunPage>("GET", "/api/runs");
    expect(RunPage.parse(answer.json)).toMatchObject({ matching: 0, runs: [] });
  });

  it("records who started a run", async () => {
    agent = (await enrolTestAgent(api.gatewayUrl, user)).agent;
    const started = await user.request<RunView>("POST", `/api/plans/${plans[0]!.id}/runs`);
    expect(started.status).toBe(201);
    expect(started.json.startedBy).toBe(user.email);
    expect((await page("?limit=1")).runs[0]).toMatchObject({ id: started.json.id, startedBy: user.email });
  });
});
