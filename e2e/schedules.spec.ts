// The organisation's Schedules page (issue 28 §3) as a team uses it: every schedule with its cron in words, its zone,
// its next run in that zone and its last run's verdict (a real firing of the workers' job scheduler, which fires at
// the next minute), paused and resumed from the page, and the Plans list showing each plan's next run.
// Screenshots go to e2e/artifacts/schedules-*.png.
import { expect, test } from "./support/test";
import { createPlan, json, pageJourney, putSchedule, stamp, url, write } from "./support/e2e-env";

const journey = pageJourney("schedules");
const { shot } = journey;

test("schedules: every schedule of the organisation with its next and last run, paused and resumed, and each plan's next run on the Plans list", async () => {
  test.setTimeout(240_000);
  const { page, targetUrl } = await journey.signUpWithAgentAndTarget("Schedule Keeper", "schedules");
  const plan = (name: string) =>
    createPlan(page, {
      name,
      target: { protocol: "websocket", url: targetUrl },
      scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
      load: { clients: 2, durationSec: 2 },
    });
  const nightly = await plan(`Nightly ${stamp}`);
  const minutely = await plan(`Every minute ${stamp}`);
  await plan(`Unscheduled ${stamp}`);
  await putSchedule(page, nightly.id, { cron: "0 3 * * 1-5", timezone: "Europe/Berlin" });
  await putSchedule(page, minutely.id, { cron: "* * * * *", timezone: "UTC" });

  // From the navigation.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Schedules" }).click();
  await expect(page).toHaveURL(/\/schedules$/);
  const row = (planId: string) => page.locator(`[data-testid="schedule-row"][data-plan-id="${planId}"]`);
  await expect(page.getByTestId("schedule-row")).toHaveCount(2);
  await expect(row(nightly.id).getByTestId("schedule-when")).toContainText("at 03:00, Monday to Friday");
  await expect(row(nightly.id)).toContainText("Europe/Berlin");
  // 03:00 in Berlin, named as Berlin's time (GMT+1 or +2), whatever the browser's zone.
  await expect(row(nightly.id).getByTestId("schedule-next")).toHaveText(
    /^in .+ · \w{3} \d+, \d{4}, 3:00:00\sAM GMT\+[12]$/,
  );
  await expect(row(nightly.id).getByTestId("schedule-last")).toHaveAttribute("data-outcome", "never fired");
  await expect(row(minutely.id).getByTestId("schedule-when")).toContainText("every minute");
  await expect(row(minutely.id).getByTestId("schedule-state")).toHaveText("enabled");

  // The minutely schedule fires (the workers' real job scheduler), its run ends, and its verdict shows as a link.
  await expect(async () => {
    await page.reload();
    await expect(row(minutely.id).getByTestId("schedule-last")).toHaveAttribute(
      "data-outcome",
      /^(passed|SLO failed|incomplete|failed|aborted)$/,
      { timeout: 2_000 },
    );
  }).toPass({ timeout: 150_000, intervals: [5_000] });
  const runLink = row(minutely.id).getByTestId("schedule-last").getByRole("link");
  await expect(runLink).toHaveAttribute("href", /^\/runs\/[0-9a-f-]{36}\/report$/);
  await shot("page");

  // Pausing stops it without forgetting it; the Plans list says so, and the nightly plan's next run.
  await row(minutely.id)
    .getByRole("button", { name: `Pause the schedule of Every minute ${stamp}` })
    .click();
  await expect(row(minutely.id).getByTestId("schedule-state")).toHaveText("paused");
  await expect(row(minutely.id).getByTestId("schedule-next")).toHaveText("paused");
  await expect(row(minutely.id)).toHaveAttribute("data-paused", "true");
  await shot("paused");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Plans" }).click();
  const planRow = (planId: string) => page.locator(`[data-testid="plan-row"][data-plan-id="${planId}"]`);
  await expect(planRow(minutely.id).getByTestId("plan-next-run")).toHaveText("paused");
  await expect(planRow(nightly.id).getByTestId("plan-next-run")).toHaveText(
    /^in .+ · \w{3} \d+, \d{4}, 3:00:00\sAM GMT\+[12]$/,
  );
  await expect(
    page.locator('[data-testid="plan-row"]', { hasText: `Unscheduled ${stamp}` }).getByTestId("plan-next-run"),
  ).toHaveText("not scheduled");
  await shot("plans-list");

  // Resumed, it fires again at its next minute; then it is removed so the journey leaves nothing firing.
  await page.goto(url("/schedules"));
  await row(minutely.id)
    .getByRole("button", { name: `Resume the schedule of Every minute ${stamp}` })
    .click();
  await expect(row(minutely.id).getByTestId("schedule-state")).toHaveText("enabled");
  await expect(row(minutely.id).getByTestId("schedule-next")).toHaveText(/^in (\d+ s|1 min) · /);
  const audit = await json<{ entries: { action: string }[] }>(await page.request.get(url("/api/audit")), "audit");
  expect(audit.entries.map((entry) => entry.action)).toEqual(
    expect.arrayContaining(["schedule.paused", "schedule.resumed"]),
  );
  expect((await page.request.delete(url(`/api/plans/${minutely.id}/schedule`), write)).status()).toBe(204);
});
