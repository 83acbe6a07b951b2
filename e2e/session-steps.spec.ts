// A load tester plans against a server that speaks its own protocol, in the form alone: a real redis-server over
// TCP with "\r\n" framing, PING answered by +PONG, and a session handshake (send PING, wait for +PONG) added as
// steps in the form, reordered and removed there; the YAML view shows them, the plan runs on a real agent, and the
// report passes with round trips and no errors. Screenshots go to e2e/artifacts/session-*.png.
import { expect, test } from "./support/test";
import type { RunView } from "@throng/protocol/run";
import { expectRunStatus, json, signUp, stamp, url } from "./support/e2e-env";
import { fillPlanYaml, planYamlText } from "./support/plan-yaml";
import { redisJourney } from "./support/redis-journey";

const journey = redisJourney("session");

test("a Redis ping-pong plan with a session handshake, built in the form, runs and passes", async () => {
  test.setTimeout(150_000);
  const { page, pageErrors, shot } = journey;
  await signUp(page, "Session Tester", "session");
  await journey.startAgent();

  const planName = `Redis session ${stamp}`;
  await journey.newRedisPlan(planName);

  const scenario = page.getByTestId("plan-section-scenario");
  await expect(page.getByLabel("Scenario type")).toHaveValue("ping-pong");
  await scenario.getByLabel("Ping interval").fill("200");
  // The built-in ping's 64 B stays in its box; the custom message is what is sent, and what is counted.
  await scenario.getByLabel("Custom message").check();
  await scenario.getByLabel("Body", { exact: true }).fill("PING");
  // 100 clients × 5 PINGs of 4 B a second: 2,000 B/s, not 100 × 5 × 64 B.
  await expect(page.getByTestId("plan-bandwidth")).toHaveText(" · ≈ 16 kbit/s of payload sent");
  await scenario.getByLabel("Response matching").selectOption("order");
  await scenario.getByLabel("Check every reply").check();
  await scenario.getByLabel("Each reply must").selectOption({ label: "starts with" });
  await scenario.getByTestId("union-scenario-reply-expect").getByLabel("Starts with (text)").fill("+PONG");
  await expect(scenario.getByTestId("union-scenario-reply-expect").getByLabel("Starts with (hex)")).toHaveValue(
    "2b504f4e47",
  );

  // The handshake, step by step in the form: send PING, wait for +PONG; a pause added, moved and removed again.
  const steps = scenario.getByTestId("list-scenario-session");
  const step = (index: number) => steps.getByTestId("union-list-item").nth(index);
  const kinds = () =>
    steps.getByTestId("union-list-item").evaluateAll((items) => items.map((item) => item.getAttribute("data-kind")));
  await expect(steps).toContainText("docs/protocols.md");
  await steps.getByLabel("New session step").selectOption({ label: "Send a message" });
  await steps.getByRole("button", { name: "Add session step" }).click();
  await step(0).getByLabel("Message body").fill("PING");
  await steps.getByLabel("New session step").selectOption({ label: "Wait for a reply" });
  await steps.getByRole("button", { name: "Add session step" }).click();
  // A new reply rule starts as the schema's first kind (a JSON field); a RESP reply is matched by its first bytes.
  await expect(step(1).getByLabel("Reply must")).toHaveValue("json");
  await step(1).getByLabel("Reply must").selectOption({ label: "starts with" });
  await step(1).getByLabel("Starts with (text)").fill("+PONG");
  await steps.getByLabel("New session step").selectOption({ label: "Pause" });
  await steps.getByRole("button", { name: "Add session step" }).click();
  await step(2).getByLabel("Pause for").fill("10");
  await steps.getByRole("button", { name: "Move session step 3 up" }).click();
  await expect.poll(kinds).toEqual(["send", "wait", "expect"]);
  await expect(step(2).getByLabel("Starts with (hex)")).toHaveValue("2b504f4e47");
  await shot("form-steps");
  // A step's kind changes in place: the pause becomes a send, in the same position.
  await steps.getByLabel("Kind of session step 2").selectOption({ label: "Send a message" });
  await expect.poll(kinds).toEqual(["send", "send", "expect"]);
  await expect(step(1).getByLabel("Message body")).toHaveValue("");
  await steps.getByRole("button", { name: "Remove session step 2" }).click();
  await expect.poll(kinds).toEqual(["send", "expect"]);

  await page.getByLabel("Clients", { exact: true }).fill("2");
  await page.getByLabel("Duration", { exact: true }).fill("5");

  // The YAML view shows the steps in order; a step edited there comes back to the form.
  await page.getByRole("tab", { name: "YAML" }).click();
  const text = await planYamlText(page);
  expect(text).toMatch(
    /session:\s*\n\s*- kind: send\s*\n\s*message:\s*\n\s*body: PING\s*\n\s*- kind: expect\s*\n\s*reply:\s*\n\s*prefixHex: 2b504f4e47/,
  );
  expect(text).toContain("delimiterHex: 0d0a");
  expect(text, "the built-in ping's size, unused beside a custom message, is not in the plan").not.toContain(
    "messageBytes",
  );
  await expect(page.getByTestId("plan-form-error")).toHaveCount(0);
  await shot("yaml");
  const withFailWhen = text.replace(
    /( *)reply:\n( *)prefixHex: 2b504f4e47\n/,
    (found, outer: string, inner: string) => `${found}${outer}failWhen:\n${inner}regex: ^-\n`,
  );
  expect(withFailWhen).not.toBe(text);
  await fillPlanYaml(page, withFailWhen);
  await expect(page.getByTestId("plan-form-error")).toHaveCount(0);
  await page.getByRole("tab", { name: "Form" }).click();
  await expect(step(1).getByLabel("Fail when the reply")).toHaveValue("regex");
  await expect(step(1).getByLabel("Regular expression")).toHaveValue("^-");
  await expect(step(0).getByLabel("Message body")).toHaveValue("PING");
  await shot("form-from-yaml");

  // A step's schema error lands on the step's own field.
  await step(1).getByLabel("Starts with (hex)").fill("2b5");
  await page.getByTestId("save-plan").click();
  await expect(page.getByTestId("field-error-scenario-session-1-reply-prefixHex")).toContainText("hex bytes");
  await step(1).getByLabel("Starts with (text)").fill("+PONG");
  await page.getByTestId("save-plan").click();
  await expect(page).toHaveURL(/\/plans\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("plan-file")).toContainText("kind: expect");
  await expect(page.locator("main")).toContainText("ping every 200 ms, custom message of 4 B · ≈ 10 msg/s");

  const runId = await journey.startRun(planName);
  await expectRunStatus(page, runId, "finished", { timeoutMs: 60_000, intervalMs: 1000 });
  const run = await json<RunView>(await page.request.get(url(`/api/runs/${runId}`)), "read run");
  expect(run.summary?.errors, JSON.stringify(run.summary?.errorsByKind)).toBe(0);
  expect(run.summary?.messagesReceived).toBeGreaterThan(0);
  expect(run.summary?.rttP50Ms).not.toBeNull();
  expect(run.verdict?.passed, JSON.stringify(run.verdict)).toBe(true);

  await page.goto(url(`/runs/${runId}/report`));
  await expect(page.getByTestId("report-verdict")).toHaveText("passed");
  await shot("report");
  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});
