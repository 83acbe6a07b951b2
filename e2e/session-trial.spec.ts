// "Try it" (issue 15 §4): a load tester builds a Redis session in the plan form and tries it before saving: one client
// connects from a real agent to a real redis-server and the page shows each step's result, bytes and time. Without
// an agent the page says how to start one; a reply that does not match shows what Redis answered instead.
// Screenshots go to e2e/artifacts/trial-*.png.
import { expect, test } from "./support/test";
import { expectAgentsOnline, signUp } from "./support/e2e-env";
import { redisJourney } from "./support/redis-journey";

const journey = redisJourney("trial");

test("Try it runs a Redis session built in the form from a real agent, and shows each step's result and bytes", async () => {
  test.setTimeout(120_000);
  const { page, redisPort } = journey;
  await signUp(page, "Trial Tester", "trial");
  await journey.newRedisPlan("Redis trial");
  const target = page.getByTestId("plan-section-target");

  const scenario = page.getByTestId("plan-section-scenario");
  await scenario.getByLabel("Message size").fill("");
  await scenario.getByLabel("Custom message").check();
  await scenario.getByLabel("Body", { exact: true }).fill("PING");
  const steps = scenario.getByTestId("list-scenario-session");
  const step = (index: number) => steps.getByTestId("union-list-item").nth(index);
  await steps.getByLabel("New session step").selectOption({ label: "Send a message" });
  await steps.getByRole("button", { name: "Add session step" }).click();
  await step(0).getByLabel("Message body").fill("PING");
  await steps.getByLabel("New session step").selectOption({ label: "Wait for a reply" });
  await steps.getByRole("button", { name: "Add session step" }).click();
  await step(1).getByLabel("Reply must").selectOption({ label: "starts with" });
  await step(1).getByLabel("Starts with (text)").fill("+PONG");

  const trial = scenario.getByTestId("session-trial");
  // A form problem is shown as saving shows it, and nothing is tried.
  await target.getByLabel("Port", { exact: true }).fill("");
  await trial.getByRole("button", { name: "Try it" }).click();
  await expect(page.getByTestId("field-error-target-port")).toBeVisible();
  await expect(trial.getByTestId("trial-result")).toHaveCount(0);
  // Said beside the button too, not only at the top of the form.
  await expect(trial.getByTestId("trial-problems")).toContainText("a problem to fix first");
  await target.getByLabel("Port", { exact: true }).fill(String(redisPort));

  // No agent yet: the API's 409 says how to start one. The plan is not named yet, and a trial does not need it.
  await page.getByLabel("Plan name").fill("");
  const asked = page.waitForRequest(
    (request) => request.url().endsWith("/api/plans/try") && request.method() === "POST",
  );
  await trial.getByRole("button", { name: "Try it" }).click();
  await asked;
  await expect(trial.getByTestId("trial-error")).toContainText("throng-agent connect");
  await expect(trial.getByTestId("trial-problems")).toHaveCount(0);
  await journey.shot("no-agent");
  await page.getByLabel("Plan name").fill("Redis trial");

  await journey.startAgent();
  await expectAgentsOnline(page, 1);

  await trial.getByRole("button", { name: "Try it" }).click();
  await expect(trial.getByTestId("trial-verdict")).toHaveText("ok", { timeout: 30_000 });
  await expect(trial.getByTestId("trial-connect")).toContainText("ok");
  const rows = trial.getByTestId("trial-step");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute("data-ok", "true");
  await expect(rows.nth(0)).toContainText("PING");
  await expect(rows.nth(0)).toContainText("4 bytes");
  await expect(rows.nth(1)).toHaveAttribute("data-ok", "true");
  await expect(rows.nth(1)).toContainText("matched: +PONG");
  await rows.nth(1).getByText("5 bytes").click();
  await expect(rows.nth(1)).toContainText("2b504f4e47");
  await journey.shot("ok");

  // A reply rule Redis's answer does not meet: the step fails by the engine's cause, showing what came instead.
  await step(1).getByLabel("Starts with (text)").fill("+OK");
  await step(1).locator("summary", { hasText: "Options" }).click();
  await step(1).getByLabel("Timeout").fill("500");
  await trial.getByRole("button", { name: "Try it" }).click();
  await expect(trial.getByTestId("trial-verdict")).toHaveText("failed", { timeout: 30_000 });
  await expect(rows.nth(1)).toHaveAttribute("data-ok", "false");
  await expect(rows.nth(1)).toContainText("session-timeout");
  await expect(rows.nth(1)).toContainText("skipped: +PONG");
  await expect(rows.nth(1).getByTestId("trial-unmatched")).toBeVisible();
  await journey.shot("mismatch");
  expect(journey.pageErrors, "uncaught errors in the page").toEqual([]);
});
