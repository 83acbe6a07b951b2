// Editing a plan makes a new version: a plan seeded through the API with the browser's session is edited in the
// dashboard (clients changed), the page shows version 2 and lists both versions, and a save from a stale
// version is refused with 409. Screenshots go to e2e/artifacts/.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "./support/test";
import { artifacts, baseUrl, signUp, stamp, url } from "./support/e2e-env";
const write = { headers: { origin: baseUrl } };

test("a plan is edited into version 2, both versions are listed, and a stale save is refused", async ({ page }) => {
  test.skip(!baseUrl, "npm test sets E2E_BASE_URL");
  test.setTimeout(90_000);
  mkdirSync(artifacts, { recursive: true });
  const pageErrors: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(`${page.url()}: ${error.message}`));

  await signUp(page, "Plan Editor", "versions");

  const spec = {
    name: `Versioned ${stamp}`,
    target: { protocol: "websocket", url: "ws://127.0.0.1:9/" },
    scenario: { kind: "ping-pong", intervalMs: 500, messageBytes: 64 },
    load: { clients: 3, durationSec: 30 },
  };
  const created = await page.request.post(url("/api/plans"), { data: spec, ...write });
  expect(created.ok(), `create plan: HTTP ${created.status()} ${await created.text()}`).toBe(true);
  const plan = (await created.json()) as { id: string; version?: number };
  expect(plan.version).toBe(1);

  await page.goto(url(`/plans/${plan.id}`));
  await expect(page.getByTestId("plan-version")).toHaveText("version 1");
  await expect(page.getByText(/clone it, edit the copy/i)).toHaveCount(0);
  await page.getByTestId("edit-plan").click();
  await expect(page).toHaveURL(new RegExp(`/plans/${plan.id}/edit$`));
  const clients = page.getByLabel("Clients", { exact: true });
  await expect(clients).toHaveValue("3");
  await clients.fill("7");
  await page.getByTestId("save-plan").click();

  await expect(page).toHaveURL(new RegExp(`/plans/${plan.id}$`));
  await expect(page.getByTestId("plan-version")).toHaveText("version 2");
  await expect(page.getByTestId("plan-file")).toContainText("clients: 7");
  const rows = page.getByTestId("plan-version-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText("v2");
  await expect(rows.nth(1)).toContainText("v1");
  await page.getByRole("button", { name: "View version 1" }).click();
  await expect(page.getByTestId("plan-version-file")).toContainText("clients: 3");
  await page.screenshot({ path: join(artifacts, "plan-versions.png"), fullPage: true });

  const stale = await page.request.put(url(`/api/plans/${plan.id}`), {
    data: { version: 1, spec: { ...spec, load: { clients: 9, durationSec: 30 } } },
    ...write,
  });
  expect(stale.status(), await stale.text()).toBe(409);

  // The editor shows the same refusal in place when it was loaded before someone else saved.
  await page.getByTestId("edit-plan").click();
  await expect(clients).toHaveValue("7");
  const other = await page.request.put(url(`/api/plans/${plan.id}`), {
    data: { version: 2, spec: { ...spec, load: { clients: 5, durationSec: 30 } } },
    ...write,
  });
  expect(other.ok(), await other.text()).toBe(true);
  await clients.fill("8");
  await page.getByTestId("save-plan").click();
  await expect(page.getByTestId("plan-conflict")).toBeVisible();
  await page.getByTestId("plan-conflict-reload").click();
  await expect(clients).toHaveValue("5");
  await expect(page.getByTestId("save-plan")).toHaveText("Save as version 4");

  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});
