// Latency distributions (issue 28 §1) on a real run: the run page's histogram with its p50/p90/p99/max, the heatmap
// over time with its legend, another metric picked, a range in the URL (?from=&to=) read by the section, and the
// same section on the report; a login storm's session in the step table, a row per step. Screenshots go to e2e/artifacts/distribution-*.png.
import { expect, test } from "./support/test";
import { createPlan, finishedPingPongRuns, finishedRun, pageJourney, stamp, url } from "./support/e2e-env";

const journey = pageJourney("distribution");
const { shot } = journey;

test("latency distribution: a finished run's histogram with percentile markers, its heatmap over time, a range and the report", async () => {
  test.setTimeout(180_000);
  const { page, targetUrl } = await journey.signUpWithAgentAndTarget("Dist Reader", "distribution");
  const { runIds } = await finishedPingPongRuns(page, {
    name: `Distribution ${stamp}`,
    targetUrl,
    durationSec: 4,
    count: 1,
  });
  const runId = runIds[0]!;

  await page.goto(url(`/runs/${runId}`));
  const section = page.getByTestId("latency-distribution");
  await expect(section.getByTestId("distribution-range")).toContainText("The whole run");
  await expect(section.getByTestId("distribution-stats")).toHaveText(
    /^[\d,.\s]+ samples · p50 .+ · p90 .+ · p99 .+ · max .+$/,
  );
  // Both canvases painted every sample of the run (data-painted is the count they drew).
  const samples = Number(
    (await section.getByTestId("distribution-stats").textContent())!.split(" samples")[0]!.replace(/[^\d]/g, ""),
  );
  expect(samples).toBeGreaterThan(10);
  await expect(section.getByTestId("distribution-histogram")).toHaveAttribute("data-painted", String(samples));
  await expect(section.getByTestId("latency-heatmap")).toHaveAttribute("data-painted", String(samples));
  await expect(section.getByTestId("heatmap-legend")).toContainText("Samples per cell:");
  const options = await section.getByTestId("distribution-metric").locator("option").allTextContents();
  expect(options).toEqual(["Round trips", "Round trips from the intended send (corrected)", "Connects"]);
  // Pointing at the heatmap reads a cell back.
  await section.getByTestId("latency-heatmap").hover();
  await expect(section.getByTestId("heatmap-readout")).toContainText(/samples$/);
  await shot("run-page");

  // Connect times: three clients, three samples.
  await section.getByTestId("distribution-metric").selectOption("connect");
  await expect(section.getByTestId("distribution-stats")).toHaveText(/^3 samples/);

  // A range in the URL (the zoom's): only its seconds.
  await page.goto(url(`/runs/${runId}?from=1&to=3`));
  await expect(section.getByTestId("distribution-range")).toContainText("Seconds 0:01 to 0:03 of the run");
  const inRange = Number(
    (await section.getByTestId("distribution-stats").textContent())!.split(" samples")[0]!.replace(/[^\d]/g, ""),
  );
  expect(inRange).toBeGreaterThan(0);
  expect(inRange).toBeLessThan(samples);

  await page.goto(url(`/runs/${runId}/report`));
  await expect(page.getByTestId("report").getByTestId("distribution-stats")).toHaveText(
    new RegExp(`^${samples.toLocaleString("en-GB")} samples`),
  );
  await shot("report");

  // A login storm: its session (the built-in login, two steps) in the step table, its logins' distribution.
  const plan = await createPlan(page, {
    name: `Logins ${stamp}`,
    target: { protocol: "websocket", url: targetUrl },
    scenario: { kind: "login-storm", login: true },
    load: { clients: 4, durationSec: 3 },
  });
  const stormId = await finishedRun(page, plan.id, { timeoutMs: 60_000, intervalMs: 500 });
  await page.goto(url(`/runs/${stormId}`));
  const breakdown = page.getByTestId("run-breakdown");
  await expect(breakdown.getByRole("heading", { name: "Session (2 steps)" })).toBeVisible();
  const row = breakdown.getByTestId("session-row");
  await expect(row.locator("td").first()).toHaveText("4");
  await expect(row.locator("td").last()).toHaveText("none");
  // Each step timed on its own by the agent: the login sent, then its answer awaited, once per client, none failed.
  const steps = breakdown.getByTestId("session-step-row");
  await expect(steps).toHaveCount(2);
  await expect(steps.nth(0).locator("th")).toContainText('sends {"type":"login"');
  await expect(steps.nth(1).locator("th")).toHaveText("1 awaits type = login-ok");
  for (const step of [steps.nth(0), steps.nth(1)]) {
    await expect(step.locator("td").first()).toHaveText("4");
    await expect(step.locator("td").nth(1)).toHaveText(/ms$/);
    await expect(step.locator("td").last()).toHaveText("none");
  }
  await section.getByTestId("distribution-metric").selectOption("login");
  await expect(section.getByTestId("distribution-stats")).toHaveText(/^4 samples/);
  await shot("login-storm");
});
