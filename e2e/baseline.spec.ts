// A plan's baseline (issue 28 §3) as a team uses it: a finished run pinned from its page, a later run's page showing
// its figures against it (the table `throng run --baseline pinned` gates on), the plans list showing each plan's last
// verdict and baseline, the plan page naming the baseline, its trend drawing it as a line, and unpinning it. Screenshots go to e2e/artifacts/baseline-*.png.
import { expect, test } from "./support/test";
import { finishedPingPongRuns, json, pageJourney, stamp, url } from "./support/e2e-env";

const journey = pageJourney("baseline");
const { shot } = journey;

test("baseline: a run pinned from its page, a later run compared with it, the plan page unpinning it", async () => {
  test.setTimeout(180_000);
  const { page, targetUrl } = await journey.signUpWithAgentAndTarget("Baseline Keeper", "baseline");
  const { planId, runIds } = await finishedPingPongRuns(page, {
    name: `Baseline ${stamp}`,
    targetUrl,
    durationSec: 3,
    count: 2,
  });
  const [first, second] = runIds as [string, string];

  // The first run's page: no baseline yet; pin it.
  await page.goto(url(`/runs/${first}`));
  const panel = page.getByTestId("run-baseline");
  await expect(panel.getByTestId("no-baseline")).toBeVisible();
  await panel.getByTestId("pin-baseline").click();
  await expect(panel.getByTestId("run-is-baseline")).toBeVisible();

  // The second run's page: each metric against the baseline, with the change.
  await page.goto(url(`/runs/${second}`));
  const table = panel.getByTestId("baseline-table");
  await expect(table).toBeVisible();
  await expect(table.locator('[data-testid="baseline-row"][data-metric="rtt-p99-ms"] th')).toHaveText("Round trip p99");
  await expect(table.locator('[data-testid="baseline-row"][data-metric="rtt-p99-ms"] td').nth(2)).toHaveText(
    /^([+−][\d.]+%|no change)$/,
  );
  await expect(table.locator('[data-testid="baseline-row"][data-metric="error-rate"]')).toBeVisible();
  await shot("run-page");
  // The report shows the same table.
  await page.goto(url(`/runs/${second}/report`));
  await expect(page.getByTestId("baseline-table").locator('[data-metric="rtt-p99-ms"]')).toBeVisible();

  // The plans list: each plan's last verdict and its baseline.
  await page.goto(url("/plans"));
  const row = page.locator(`[data-testid="plan-row"][data-plan-id="${planId}"]`);
  await expect(row.getByTestId("plan-last-run")).toContainText("passed");
  await expect(row.getByTestId("plan-last-run").getByRole("link")).toHaveAttribute("href", `/runs/${second}`);
  await expect(row.getByTestId("plan-baseline-cell").getByRole("link")).toHaveAttribute("href", `/runs/${first}`);

  // The plan page names the baseline and unpins it.
  await page.goto(url(`/plans/${planId}`));
  const line = page.getByTestId("plan-baseline");
  await expect(line.getByTestId("plan-baseline-run")).toHaveAttribute("href", `/runs/${first}`);
  // The trend draws the baseline run as a labelled line at its own value on each figure, inside the y axis.
  const baselineP99 = (
    await json<{ summary: { rttP99Ms: number } }>(
      await page.request.get(url(`/api/runs/${first}`)),
      "read baseline run",
    )
  ).summary.rttP99Ms;
  const p99 = page.locator('[data-testid="plan-trend-chart"][data-figure="p99Ms"]');
  await expect(p99).toHaveAttribute("data-baseline", String(baselineP99));
  await expect(p99.getByTestId("plan-trend-baseline")).toHaveText(
    new RegExp(`^Baseline run ${first.slice(0, 8)}…: [\\d.,]+ ms$`),
  );
  expect(Number(await p99.getAttribute("data-y-top"))).toBeGreaterThanOrEqual(baselineP99);
  await expect(
    page.locator('[data-testid="plan-trend-chart"][data-figure="messagesPerSec"]').getByTestId("plan-trend-baseline"),
  ).toBeVisible();
  await page.getByTestId("plan-trend").scrollIntoViewIfNeeded();
  await shot("plan-page");
  await line.getByTestId("plan-unpin-baseline").click();
  await expect(line).toContainText("No baseline pinned");
  await expect(page.getByTestId("plan-trend-baseline")).toHaveCount(0);
  expect(
    (await json<{ baselineRunId: string | null }>(await page.request.get(url(`/api/plans/${planId}`)), "read plan"))
      .baselineRunId,
  ).toBeNull();
});
