// Two daily-workflow journeys of issue 18: a run started while the agent is busy waits in the queue (visible on its
// page and in the runs list, cancellable there), and plans are archived, found again with the filter, restored,
// and deleted only when they never ran. Screenshots go to e2e/artifacts/.
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { expect, test } from "./support/test";
import { createPlan, enrolAgent, json, pageJourney, putSchedule, signUp, url, write } from "./support/e2e-env";

test.describe.configure({ mode: "serial" });

const journey = pageJourney("queue");
const { start, startTarget, scratch, shot } = journey;
let page: Page;
let targetUrl = "";
const plans: Record<"long" | "short", { id: string; name: string }> = {
  long: { id: "", name: "" },
  short: { id: "", name: "" },
};
let firstRunId = "";

async function savePlan(name: string, durationSec: number) {
  const spec = {
    name,
    target: { protocol: "websocket", url: targetUrl },
    scenario: { kind: "ping-pong", intervalMs: 500, messageBytes: 64 },
    load: { clients: 2, durationSec },
  };
  return { id: (await createPlan(page, spec)).id, name };
}

// After pageJourney's beforeAll has opened the page: one organisation, agent and pair of plans for both journeys.
test.beforeAll(async () => {
  page = journey.page();
  await signUp(page, "Queue Tester", "queue");
  targetUrl = await startTarget();
  await enrolAgent(page, start, join(scratch, "agent.json"));
  plans.long = await savePlan(`soak ${Date.now()}`, 120);
  plans.short = await savePlan(`smoke ${Date.now()}`, 2);
});

test("run queue: a run started while the agent is busy waits queued, says which run holds the agent, and is cancelled from its page", async () => {
  test.setTimeout(90_000);
  firstRunId = (
    await json<{ id: string }>(await page.request.post(url(`/api/plans/${plans.long.id}/runs`), write), "first run")
  ).id;
  await expect
    .poll(
      async () =>
        (await json<{ status: string }>(await page.request.get(url(`/api/runs/${firstRunId}`)), "first run")).status,
      { timeout: 30_000 },
    )
    .toBe("running");

  await page.goto(url("/plans"));
  await page.locator(`[data-testid="plan-row"][data-plan-id="${plans.short.id}"]`).getByTestId("start-run").click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]+$/);
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", "queued");
  // The run holding the agent is named by a short link to it, not a 36-character id.
  await expect(page.getByTestId("run-queued")).toContainText(
    `The one agent that matches is busy with run ${firstRunId.slice(0, 8)}…; the run is queued and starts when one is free`,
  );
  await expect(page.getByTestId("run-queued").getByTestId("run-link")).toHaveAttribute("href", `/runs/${firstRunId}`);
  // Nothing is measured before the run leaves the queue: one line instead of empty charts.
  await expect(page.getByTestId("run-charts-queued")).toBeVisible();
  await expect(page.getByTestId("chart-connections")).toHaveCount(0);
  await expect(page.getByText("no agent is online", { exact: false })).toHaveCount(0);
  await shot("run-page");
  const queuedId = /\/runs\/([0-9a-f-]+)$/.exec(page.url())![1]!;

  await page.goto(url("/runs"));
  await expect(page.locator(`[data-testid="run-row"][data-run-id="${queuedId}"]`)).toHaveAttribute(
    "data-status",
    "queued",
  );
  await expect(page.locator(`[data-testid="run-row"][data-run-id="${queuedId}"]`)).toContainText("queued");
  await shot("runs-list");

  await page.goto(url(`/runs/${queuedId}`));
  await page.getByRole("button", { name: "Cancel queued run" }).click();
  const dialog = page.getByTestId("abort-run-dialog");
  await expect(dialog).toContainText("has not started");
  await dialog.getByTestId("confirm").click();
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", "aborted", { timeout: 15_000 });
  await expect(page.getByTestId("run-queued")).toHaveCount(0);
  await json(await page.request.post(url(`/api/runs/${firstRunId}/abort`), write), "abort the first run");
});

test("plans: archive hides a plan, the filter finds it, restore brings it back; delete refuses a plan with runs and removes one without", async () => {
  test.setTimeout(60_000);
  await page.goto(url(`/plans/${plans.short.id}`));
  await page.getByTestId("archive-plan").click();
  await expect(page.getByTestId("plan-archived")).toContainText("hidden from the plan list");
  await shot("plan-archived");

  await page.goto(url("/plans"));
  await expect(page.locator(`[data-testid="plan-row"][data-plan-id="${plans.long.id}"]`)).toBeVisible();
  await expect(page.locator(`[data-testid="plan-row"][data-plan-id="${plans.short.id}"]`)).toHaveCount(0);
  await page.getByLabel("Show").selectOption({ label: "Archived plans" });
  const archivedRow = page.locator(`[data-testid="plan-row"][data-plan-id="${plans.short.id}"]`);
  await expect(archivedRow.getByTestId("plan-archived-badge")).toHaveText("archived");
  await expect(page.locator(`[data-testid="plan-row"][data-plan-id="${plans.long.id}"]`)).toHaveCount(0);
  await shot("plans-archived");
  await archivedRow.getByRole("link", { name: plans.short.name, exact: true }).click();
  await page.getByTestId("restore-plan").click();
  await expect(page.getByTestId("plan-archived")).toHaveCount(0);

  // It has a (cancelled) run: deleting it would take the run too, so the API refuses and says to archive it.
  await page.getByTestId("delete-plan").click();
  const dialog = page.getByTestId("delete-plan-dialog");
  await dialog.getByTestId("confirm").click();
  await expect(dialog).toContainText("archive it instead");
  await dialog.getByRole("button", { name: "Cancel" }).click();

  const unused = await savePlan(`draft ${Date.now()}`, 5);
  await page.goto(url(`/plans/${unused.id}`));
  await page.getByTestId("delete-plan").click();
  await page.getByTestId("delete-plan-dialog").getByTestId("confirm").click();
  await expect(page).toHaveURL(/\/plans$/);
  await page.getByLabel("Show").selectOption({ label: "All plans" });
  await expect(page.locator(`[data-testid="plan-row"][data-plan-id="${plans.short.id}"]`)).toBeVisible();
  await expect(page.locator(`[data-testid="plan-row"][data-plan-id="${unused.id}"]`)).toHaveCount(0);
});

test("schedules: a plan is put on a cron schedule with its next times shown, a bad schedule is named, and it is stopped", async () => {
  test.setTimeout(60_000);
  await page.goto(url(`/plans/${plans.long.id}`));
  const panel = page.getByTestId("plan-schedule");
  await expect(panel.getByTestId("plan-schedule-state")).toHaveText(
    "Not scheduled: the plan runs when someone starts it.",
  );
  await panel.getByLabel("Cron schedule").fill("0 25 * * *");
  await panel.getByLabel("Time zone").fill("UTC");
  await panel.getByTestId("save-schedule").click();
  // In the form's words, not the cron library's ("Constraint error, got value 25 expected range 0-23").
  await expect(panel.locator("#schedule-cron-error")).toHaveText("hour 25 is out of range: hours go from 0 to 23");

  await panel.getByLabel("Cron schedule").fill("0 3 * * 1-5");
  await panel.getByLabel("Time zone").fill("Europe/Berlin");
  await panel.getByTestId("save-schedule").click();
  // 03:00 in Berlin, said with its zone, whatever the browser's own zone (here UTC, where it is 01:00 or 02:00).
  await expect(panel.getByTestId("plan-schedule-state")).toContainText(
    "Runs at 03:00, Monday to Friday (Europe/Berlin). Next: ",
  );
  await expect(panel.getByTestId("plan-schedule-state")).toHaveText(
    /Next: (\w{3} \d+, \d{4}, 3:00:00\sAM GMT\+[12](; |\.$)){3}/,
  );
  await shot("plan-schedule");
  await panel.getByTestId("remove-schedule").click();
  await expect(panel.getByTestId("plan-schedule-state")).toHaveText(
    "Not scheduled: the plan runs when someone starts it.",
  );
});

test("schedules: a firing that cannot start a run shows when and why on the plan's Schedule", async () => {
  // The workers' job scheduler fires at the next minute; this plan's agents must carry a label none has.
  test.setTimeout(150_000);
  const spec = {
    name: `unplaceable ${Date.now()}`,
    target: { protocol: "websocket", url: targetUrl },
    scenario: { kind: "ping-pong", intervalMs: 500, messageBytes: 64 },
    load: { clients: 2, durationSec: 2 },
    agents: { labels: { region: "nowhere" } },
  };
  const plan = await createPlan(page, spec);
  await putSchedule(page, plan.id, { cron: "* * * * *", timezone: "UTC" });
  await page.goto(url(`/plans/${plan.id}`));
  const panel = page.getByTestId("plan-schedule");
  await expect(async () => {
    await page.reload();
    await expect(panel.getByTestId("plan-schedule-last")).toHaveAttribute("data-outcome", "not-started", {
      timeout: 2_000,
    });
  }).toPass({ timeout: 120_000, intervals: [5_000] });
  await expect(panel.getByTestId("plan-schedule-last")).toContainText(/Last fired .+: no run started\. .*agent/i);
  await shot("plan-schedule-not-started");
  await panel.getByTestId("remove-schedule").click();
  await expect(panel.getByTestId("plan-schedule-state")).toHaveText(
    "Not scheduled: the plan runs when someone starts it.",
  );
});
