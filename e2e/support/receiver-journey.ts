// The frame of a journey whose workers post to an endpoint on loopback (notifications, metrics export).
import { startWebhookReceiver, type WebhookReceiver } from "../../tests/support/webhook-receiver";
import { journeyPage } from "./e2e-env";
import { test } from "./test";

/**
 * Opens the journey's page (journeyPage, its screenshots named by `prefix`) and registers the beforeAll that starts
 * a loopback receiver and the afterAll that closes it; `page()` and `receiver()` read them inside a test.
 */
export function receiverJourney(prefix: string) {
  let receiver: WebhookReceiver | undefined;
  const { page, shot } = journeyPage(prefix);
  test.beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  test.afterAll(async () => {
    await receiver?.close();
  });
  return { page, shot, receiver: () => receiver! };
}
