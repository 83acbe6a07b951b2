// Notifications (issue 18): an owner adds a Slack channel in Settings → Notifications, sends a test, and the workers'
// real HTTP POST reaches an endpoint on loopback; the delivery log shows it delivered. Screenshots to e2e/artifacts/.
import { createServer, type Server } from "node:http";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { artifacts, baseUrl, signUp, url } from "./support/e2e-env";

test.describe.configure({ mode: "serial" });

let context: BrowserContext;
let page: Page;
let server: Server;
let endpoint = "";
const received: { path: string; body: unknown }[] = [];

test.beforeAll(async ({ browser }) => {
  test.skip(!baseUrl, "npm test sets E2E_BASE_URL");
  mkdirSync(artifacts, { recursive: true });
  server = createServer(async (request, response) => {
    let text = "";
    for await (const chunk of request) text += chunk;
    received.push({ path: request.url ?? "/", body: JSON.parse(text) });
    response.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
});

test.afterAll(async () => {
  await context?.close();
  await new Promise((resolve) => server?.close(resolve));
});

test("notifications: add a Slack channel, a bad URL is named, the test reaches the endpoint and the log says delivered", async () => {
  test.setTimeout(60_000);
  await signUp(page, "Notify Tester", "notify");
  await page.goto(url("/settings/notifications"));
  await expect(page.getByTestId("channels-empty")).toBeVisible();

  await page.getByLabel("Name", { exact: true }).fill("#load-tests");
  await page.getByLabel("URL", { exact: true }).fill("ftp://example.com/hook");
  await page.getByTestId("create-channel").click();
  await expect(page.locator("#channel-url-error")).toContainText("http");

  await page.getByLabel("URL", { exact: true }).fill(`${endpoint}/services/T0/B0/secret`);
  await page.getByTestId("create-channel").click();
  const row = page.getByTestId("channel-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("#load-tests");
  await expect(row).not.toContainText("secret");

  await row.getByTestId("test-channel").click();
  await expect(page.getByTestId("delivery-row").first()).toHaveAttribute("data-status", "delivered", { timeout: 20_000 });
  expect(received).toEqual([{ path: "/services/T0/B0/secret", body: { text: "Throng test notification: this channel is set up and receives run notifications." } }]);
  await page.screenshot({ path: join(artifacts, "notifications-settings.png"), fullPage: true });
});
