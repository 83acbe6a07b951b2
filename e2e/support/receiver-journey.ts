// The frame of a journey whose workers post to an endpoint on loopback (notifications, metrics export).
import { mkdirSync } from "node:fs";
import type { BrowserContext, Page } from "@playwright/test";
import { startWebhookReceiver, type WebhookReceiver } from "../../tests/support/webhook-receiver";
import { artifacts, baseUrl } from "./e2e-env";
import { test } from "./test";

/**
 * Registers the beforeAll that starts a loopback receiver and opens a 1280×900 page (skipped outside npm test) and
 * the afterAll that closes both; `page()` and `receiver()` read them inside a test.
 */
export function receiverJourney() {
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  let receiver: WebhookReceiver | undefined;
  test.beforeAll(async ({ browser }) => {
    test.skip(!baseUrl, "npm test sets E2E_BASE_URL");
    mkdirSync(artifacts, { recursive: true });
    receiver = await startWebhookReceiver();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  });
  test.afterAll(async () => {
    await context?.close();
    await receiver?.close();
  });
  return { page: () => page!, receiver: () => receiver! };
}
