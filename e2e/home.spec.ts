// Home as a new organisation meets it: the getting-started checklist ticked step by step from real data (an agent
// enrolled with a token and online, a plan, a run), then the overview: recent runs with their verdicts, agents
// online, and the last capacity estimate per target. Screenshots go to e2e/artifacts/home-*.png.
import { join } from "node:path";
import { expect, test } from "./support/test";
import {
  baseUrl,
  createStepUpPlan,
  enrolAgent,
  finishedRun,
  json,
  pageJourney,
  stamp,
  url,
  signUp,
  write,
} from "./support/e2e-env";

const journey = pageJourney("home");
const { start, startTarget, scratch, shot } = journey;
const step = (id: string) => journey.page().locator(`[data-testid="getting-started-step"][data-step="${id}"]`);

test("home: a new organisation's checklist ticks token, agent, plan and run from real data, then the overview shows them", async () => {
  const page = journey.page();
  test.setTimeout(180_000);
  await signUp(page, "Home Owner", "home");
  await page.getByRole("link", { name: "Home" }).click();
  await expect(page).toHaveURL(new RegExp(`${baseUrl}/$`));
  await expect(page.getByTestId("getting-started")).toContainText("0 of 4 done");
  for (const id of ["token", "agent", "plan", "run"]) await expect(step(id)).toHaveAttribute("data-done", "false");
  await expect(step("token").getByRole("link", { name: "Create an enrolment token" })).toHaveAttribute(
    "href",
    "/agents",
  );
  await shot("empty");

  await enrolAgent(page, start, join(scratch, "agent.json"));
  await page.reload();
  await expect(step("token")).toHaveAttribute("data-done", "true");
  await expect(step("agent")).toHaveAttribute("data-done", "true");
  await expect(step("plan")).toHaveAttribute("data-done", "false");
  await expect(page.getByTestId("home-agents-online")).toHaveText("1");

  const targetUrl = await startTarget();
  const plan = await createStepUpPlan(page, targetUrl, {
    name: `Home search ${stamp}`,
    clients: 15,
    durationSec: 6,
    slos: [{ metric: "rtt-p99-ms", below: 2000 }],
  });
  await page.reload();
  await expect(step("plan")).toHaveAttribute("data-done", "true");
  await expect(step("run")).toHaveAttribute("data-done", "false");

  const runId = await finishedRun(page, plan.id, { timeoutMs: 90_000, intervalMs: 1000 });
  await json(
    await page.request.post(url(`/api/runs/${runId}/estimates`), {
      data: { targetName: "lobby", build: "1.0" },
      ...write,
    }),
    "save estimate",
  );

  await page.reload();
  // Every step done: the checklist steps aside for the overview.
  await expect(page.getByTestId("home-runs").getByTestId("run-row")).toHaveCount(1);
  await expect(page.getByTestId("getting-started")).toHaveCount(0);
  await expect(page.getByTestId("home-runs").getByTestId("run-verdict")).not.toHaveText("—");
  await expect(page.locator('[data-testid="home-target"][data-target="lobby"]')).toContainText("build 1.0");
  await shot("overview");
});
