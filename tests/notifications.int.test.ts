import { beforeAll, describe, expect, it } from "vitest";
import { NotificationChannelView, NotificationDeliveryView } from "@throng/protocol/notifications";
import { waitUntil } from "../infra/local/wait";
import { signUp, type Browser } from "./fault/support/api-client";
import { startControlPlane } from "./support/control-plane";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver";
import { cleanUpAfterFile } from "./support/file-cleanups";

/**
 * The settings page's test button through the real processes (issue 18): the API stores a delivery, the workers
 * send it as a real HTTP POST to a loopback endpoint, and the delivery log says it was delivered.
 */
const { cleanups, tails } = cleanUpAfterFile();
let browser: Browser;
let webhook: WebhookReceiver;
let endpoint = "";

beforeAll(async () => {
  webhook = await startWebhookReceiver();
  cleanups.push(() => webhook.close());
  endpoint = webhook.url;
  const { apiUrl } = await startControlPlane(cleanups, tails);
  browser = await signUp(apiUrl);
}, 120_000);

describe("notification channels through api and workers", () => {
  it("a test notification reaches the Slack-format endpoint as a real POST from the workers, and the log says delivered", async () => {
    const channel = NotificationChannelView.parse(
      await browser.request("POST", "/api/notification-channels", {
        kind: "slack",
        name: "#load-tests",
        url: `${endpoint}/services/T0/B0/x`,
        events: ["failed"],
      }),
    );
    expect(channel).toMatchObject({ kind: "slack", host: endpoint.replace("http://", ""), events: ["failed"] });
    const queued = NotificationDeliveryView.parse(
      await browser.request("POST", `/api/notification-channels/${channel.id}/test`),
    );
    expect(queued).toMatchObject({ event: "test", status: "pending", channelName: "#load-tests" });

    let log: NotificationDeliveryView[] = [];
    await waitUntil(
      async () => {
        log = (await browser.request<{ deliveries: NotificationDeliveryView[] }>("GET", "/api/notification-deliveries"))
          .deliveries;
        return log[0]?.status !== "pending";
      },
      { what: "the test delivery to settle", timeoutMs: 30_000, intervalMs: 200 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${tails.map((t) => t()).join("\n")}`);
    });
    expect(log[0]).toMatchObject({ id: queued.id, status: "delivered", attempts: 1, responseStatus: 200 });
    expect(webhook.received).toEqual([
      {
        path: "/services/T0/B0/x",
        body: { text: "Throng test notification: this channel is set up and receives run notifications." },
      },
    ]);
  }, 60_000);

  it("refuses a channel without an http(s) URL or events, naming the field", async () => {
    await expect(
      browser.request("POST", "/api/notification-channels", {
        kind: "webhook",
        name: "x",
        url: "ftp://example.com/hook",
        events: [],
      }),
    ).rejects.toThrow(/400.*(url|events)/);
  });
});
