// Notifications (issue 18): an owner adds a Slack channel in Settings → Notifications, sends a test, and the workers'
// real HTTP POST reaches an endpoint on loopback; the delivery log shows it delivered. Screenshots to e2e/artifacts/.
import { expect, test } from "./support/test";
import { signUp, url } from "./support/e2e-env";
import { receiverJourney } from "./support/receiver-journey";

test.describe.configure({ mode: "serial" });

const journey = receiverJourney("notifications");

test("notifications: add a Slack channel, a bad URL is named, the test reaches the endpoint and the log says delivered", async () => {
  test.setTimeout(60_000);
  const page = journey.page();
  await signUp(page, "Notify Tester", "notify");
  await page.goto(url("/settings/notifications"));
  await expect(page.getByTestId("channels-empty")).toBeVisible();

  await page.getByLabel("Name", { exact: true }).fill("#load-tests");
  await page.getByLabel("URL", { exact: true }).fill("ftp://example.com/hook");
  await page.getByTestId("create-channel").click();
  await expect(page.locator("#channel-url-error")).toContainText("http");

  await page.getByLabel("URL", { exact: true }).fill(`${journey.receiver().url}/services/T0/B0/secret`);
  await page.getByTestId("create-channel").click();
  const row = page.getByTestId("channel-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("#load-tests");
  await expect(row).not.toContainText("secret");

  await row.getByTestId("test-channel").click();
  await expect(page.getByTestId("delivery-row").first()).toHaveAttribute("data-status", "delivered", {
    timeout: 20_000,
  });
  expect(journey.receiver().received).toEqual([
    {
      path: "/services/T0/B0/secret",
      body: { text: "Throng test notification: this channel is set up and receives run notifications." },
    },
  ]);
  await journey.shot("settings");
});

test("notifications: the audit log says who added the channel, in words, without its secret path", async () => {
  const page = journey.page();
  await page.goto(url("/settings/audit"));
  const added = page.locator('[data-testid="audit-row"][data-action="notification-channel.created"]');
  await expect(added).toContainText("Added a notification channel");
  await expect(added).toContainText("notification channel “#load-tests”");
  await expect(added).not.toContainText("secret");
  await journey.shot("audit");
});
