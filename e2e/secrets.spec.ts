// Organisation secrets as an admin lives them (issue 27 §4): Settings → Secrets adds one, replaces its value and
// deletes it, and no page shows a value again; a plan names it as {{secrets.NAME}}, a real agent writes it in (a
// password-protected redis-server takes the AUTH), and the run's public share page shows the plan with a literal
// header value masked. Screenshots go to e2e/artifacts/secrets-*.png.
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { expect, test } from "./support/test";
import { artifacts, createPlan, enrolAgent, json, signUp, stamp, startRun, url, write } from "./support/e2e-env";
import { redisJourney } from "./support/redis-journey";

const redisPassword = `e2e-redis-pw-${stamp}`;
const journey = redisJourney("secrets", ["--requirepass", redisPassword]);
const apiKey = `e2e-api-key-${stamp}`;
const literalToken = `e2e-literal-token-${stamp}`;

type EndedRun = {
  id: string;
  status: string;
  error: string | null;
  summary: { errors: number; messagesReceived: number } | null;
};

/** Saves a plan through the API with the browser's session, runs it on the enrolled agent, and waits for its end. */
async function runToEnd(page: Page, plan: object): Promise<EndedRun> {
  const run = await startRun(page, (await createPlan(page, plan)).id);
  let ended: EndedRun | undefined;
  await expect
    .poll(
      async () => {
        ended = await json<EndedRun>(await page.request.get(url(`/api/runs/${run.id}`)), "read run");
        return ended.status;
      },
      { timeout: 90_000, intervals: [1000] },
    )
    .toMatch(/^(finished|failed)$/);
  return ended!;
}

test("an owner adds a secret under Settings, replaces its value and deletes one; no page shows a value", async () => {
  test.setTimeout(120_000);
  const { page } = journey;
  await signUp(page, "Secret Keeper", "secrets");

  await test.step("the Secrets tab starts empty and refuses a name a plan could not use", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Secrets" }).click();
    await expect(page).toHaveURL(/\/settings\/secrets$/);
    await expect(page.getByTestId("secrets-empty")).toBeVisible();
    await page.getByLabel("Name", { exact: true }).fill("9lives");
    await page.getByLabel("Value", { exact: true }).fill("x");
    await page.getByTestId("save-secret").click();
    await expect(page.getByTestId("field-error-secret-name")).toContainText("letters, digits and _");
    await expect(page.getByLabel("Name", { exact: true })).toBeFocused();
  });

  await test.step("two secrets are added; the value field is a password field, emptied once saved", async () => {
    for (const [name, value] of [
      ["REDIS_PASSWORD", "a-first-value-to-replace"],
      ["API_KEY", apiKey],
      ["OLD_TOKEN", "old-token-value"],
    ]) {
      await page.getByLabel("Name", { exact: true }).fill(name!);
      await expect(page.getByLabel("Value", { exact: true })).toHaveAttribute("type", "password");
      await page.getByLabel("Value", { exact: true }).fill(value!);
      await page.getByTestId("save-secret").click();
      await expect(page.getByTestId("secret-saved")).toContainText(`{{secrets.${name}}}`);
      await expect(page.getByLabel("Value", { exact: true })).toHaveValue("");
    }
    await expect(page.getByTestId("secret-row")).toHaveCount(3);
    await expect(page.locator('[data-testid="secret-row"][data-secret-name="REDIS_PASSWORD"]')).toContainText(
      "{{secrets.REDIS_PASSWORD}}",
    );
  });

  await test.step("Replace value takes the row's name; saving replaces it", async () => {
    await page
      .locator('[data-testid="secret-row"][data-secret-name="REDIS_PASSWORD"]')
      .getByTestId("replace-secret")
      .click();
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue("REDIS_PASSWORD");
    await expect(page.getByLabel("Value", { exact: true })).toBeFocused();
    await expect(page.getByTestId("save-secret")).toHaveText("Replace value");
    await page.getByLabel("Value", { exact: true }).fill(redisPassword);
    await page.getByTestId("save-secret").click();
    await expect(page.getByTestId("secret-saved")).toContainText("Saved REDIS_PASSWORD");
    await journey.shot("settings");
  });

  await test.step("a secret is deleted behind a confirmation", async () => {
    await page.locator('[data-testid="secret-row"][data-secret-name="OLD_TOKEN"]').getByTestId("delete-secret").click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete secret" }).click();
    await expect(page.locator('[data-testid="secret-row"][data-secret-name="OLD_TOKEN"]')).toHaveCount(0);
    await expect(page.getByTestId("secret-row")).toHaveCount(2);
  });

  await test.step("the audit log names them, and neither page holds a value", async () => {
    const secretsPage = await page.content();
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Audit log" }).click();
    await expect(page.getByText("Replaced a secret's value")).toBeVisible();
    await expect(page.getByText("Deleted a secret")).toBeVisible();
    await expect(page.getByText("secret “REDIS_PASSWORD”").first()).toBeVisible();
    for (const html of [secretsPage, await page.content()]) {
      expect(html).not.toContain(redisPassword);
      expect(html).not.toContain(apiKey);
      expect(html).not.toContain("a-first-value-to-replace");
    }
    await journey.shot("audit");
  });
});

test("a run's agent writes the secret in (Redis takes the AUTH), and the share page shows the plan masked", async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const { page } = journey;
  await enrolAgent(page, journey.start, join(journey.scratch, "agent.json"));

  await test.step("a plan whose session sends AUTH {{secrets.REDIS_PASSWORD}} runs against a password-protected Redis without an error", async () => {
    const run = await runToEnd(
      page,
      journey.sessionPlan({
        name: `Redis with a secret ${stamp}`,
        command: "AUTH {{secrets.REDIS_PASSWORD}}",
        clients: 3,
      }),
    );
    expect(run.status, `${run.error ?? ""} ${JSON.stringify(run.summary)}`).toBe("finished");
    expect(run.summary).toMatchObject({ errors: 0 });
    expect(run.summary!.messagesReceived).toBeGreaterThan(0);
  });

  let shareUrl = "";
  await test.step("a run of a plan with a literal bearer token and a secret in its headers is shared", async () => {
    const targetUrl = await journey.startTarget();
    const run = await runToEnd(page, {
      name: `Headers ${stamp}`,
      target: {
        protocol: "websocket",
        url: targetUrl,
        headers: { Authorization: `Bearer ${literalToken}`, "X-Api-Key": "{{secrets.API_KEY}}" },
      },
      scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
      load: { clients: 3, durationSec: 3 },
    });
    expect(run.status, run.error ?? "").toBe("finished");
    shareUrl = (
      await json<{ url: string }>(
        await page.request.post(url(`/api/runs/${run.id}/share-links`), { data: {}, ...write }),
        "share link",
      )
    ).url;
  });

  await test.step("the share page, opened without a session, masks the literal header and shows the secret's placeholder", async () => {
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const guest = await visitor.newPage();
    await guest.goto(shareUrl);
    const spec = guest.getByTestId("report-plan-spec");
    await expect(spec).toContainText('"Authorization": "••••••"');
    await expect(spec).toContainText('"X-Api-Key": "{{secrets.API_KEY}}"');
    await expect(guest.getByTestId("report-plan-masked")).toBeVisible();
    const html = await guest.content();
    expect(html).not.toContain(literalToken);
    expect(html).not.toContain(apiKey);
    await spec.scrollIntoViewIfNeeded();
    await guest.screenshot({ path: join(artifacts, "secrets-share-page.png"), fullPage: true });
    await visitor.close();
  });
  expect(journey.pageErrors).toEqual([]);
});
