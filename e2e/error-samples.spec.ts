// Errors you can read (issue 28 §2): a run against a real redis-server whose session Redis refuses shows, under its
// charts on the run page and in the report, what the errors said: the kind, the message, when, which client, and
// Redis's reply as text and hex, with the secret the session sent masked. Screenshots go to e2e/artifacts/error-samples-*.png.
import { expect, test } from "./support/test";
import { createPlan, expectAgentsOnline, json, signUp, stamp, startRun, url, write } from "./support/e2e-env";
import { redisJourney } from "./support/redis-journey";

const journey = redisJourney("error-samples");
const secret = `e2e-word-${stamp}`;

test("a run's rejected sessions show Redis's reply as text and hex under the charts, on the run page and in the report, the secret masked", async () => {
  test.setTimeout(180_000);
  const { page } = journey;
  await signUp(page, "Error Reader", "errors");
  await json(await page.request.put(url("/api/secrets/REDIS_WORD"), { data: { value: secret }, ...write }), "secret");
  await journey.startAgent();
  await expectAgentsOnline(page, 1);

  // Redis names the unknown command in its error: "-ERR unknown command '<the secret>', with args beginning with: 'x' ".
  const plan = await createPlan(
    page,
    journey.sessionPlan({ name: `Rejected ${stamp}`, command: "{{secrets.REDIS_WORD}} x", clients: 4 }),
  );
  const run = await startRun(page, plan.id);
  const masked = `-ERR unknown command '${"*".repeat(secret.length)}', with args beginning with: 'x' `;

  await test.step("the run page shows the session-rejected sample under the charts", async () => {
    await page.goto(url(`/runs/${run.id}`));
    await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", /finished|failed/, { timeout: 60_000 });
    const kind = page.getByTestId("error-kind-session-rejected");
    await expect(kind).toBeVisible({ timeout: 20_000 });
    await expect(kind).toContainText("1 distinct of 4 counted");
    const sample = kind.getByTestId("error-sample");
    await expect(sample).toHaveCount(1);
    await expect(sample).toContainText("session step 1 (expect): the reply matched failWhen");
    await expect(sample.getByTestId("error-sample-text")).toHaveText(masked);
    await expect(sample.getByTestId("error-sample-hex")).toContainText("2d 45 52 52 20 75 6e 6b 6e 6f 77 6e");
    await expect(sample.getByTestId("error-sample-hex")).toContainText("2a 2a 2a");
    // Under the charts: the samples come after the chart grid.
    const chartsBottom = (await page.getByTestId("chart-grid").boundingBox())!;
    const samplesTop = (await page.getByTestId("error-samples").boundingBox())!;
    expect(samplesTop.y).toBeGreaterThan(chartsBottom.y + chartsBottom.height - 1);
    expect(await page.content()).not.toContain(secret);
    await journey.shot("run");
  });

  await test.step("the report shows the same sample, masked", async () => {
    await page.goto(url(`/runs/${run.id}/report`));
    const sample = page.getByTestId("report").getByTestId("error-kind-session-rejected").getByTestId("error-sample");
    await expect(sample).toHaveCount(1);
    await expect(sample.getByTestId("error-sample-text")).toHaveText(masked);
    expect(await page.content()).not.toContain(secret);
    await journey.shot("report");
  });
  expect(journey.pageErrors).toEqual([]);
});
