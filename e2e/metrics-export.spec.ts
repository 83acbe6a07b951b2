// Metrics export (issue 17): an owner sets up an OTLP endpoint in Settings → Metrics export with a bearer token that
// is never shown again, sends a test, and the workers' real OTLP/HTTP push reaches a loopback endpoint; the
// section shows the last success. The plan form's toggle puts export.prometheus in the plan. Screenshot to e2e/artifacts/.
import { expect, test } from "./support/test";
import { signUp, url } from "./support/e2e-env";
import { planYamlText } from "./support/plan-yaml";
import { receiverJourney } from "./support/receiver-journey";

test.describe.configure({ mode: "serial" });

const journey = receiverJourney("metrics-export");

test("metrics export: an OTLP endpoint with a write-only token, a bad URL named, the test push arrives and the status says when", async () => {
  test.setTimeout(60_000);
  const page = journey.page();
  const token = "e2e-bearer-token-never-shown";
  await signUp(page, "Export Tester", "export");
  await page.goto(url("/settings/metrics-export"));
  const otlp = page.getByTestId("sink-otlp");
  await expect(otlp).toContainText("Not set up.");

  await otlp.getByLabel("URL", { exact: true }).fill("ftp://example.com/v1/metrics");
  await otlp.getByTestId("save-otlp").click();
  await expect(page.locator("#otlp-url-error")).toContainText("http");

  await otlp.getByLabel("URL", { exact: true }).fill(`${journey.receiver().url}/v1/metrics`);
  await otlp.getByLabel("Authentication").selectOption("bearer");
  await otlp.getByLabel("Token").fill(token);
  await otlp.getByTestId("save-otlp").click();
  const status = page.getByTestId("sink-status-otlp");
  await expect(status).toContainText("none yet");
  await expect(otlp.getByLabel("Token")).toHaveValue("");
  await expect(otlp).toContainText("Set: leave empty to keep it");
  expect(await page.content()).not.toContain(token);

  await otlp.getByTestId("test-otlp").click();
  await expect(status).not.toContainText("none yet", { timeout: 20_000 });
  const { received } = journey.receiver();
  expect(received).toHaveLength(1);
  expect(received[0]!.path).toBe("/v1/metrics");
  expect(JSON.stringify(received[0]!.body)).toContain("throng_export_test");
  await journey.shot("settings");

  // The plan form's toggle: the plan then says export.prometheus (the YAML view shows what the API would get).
  await page.goto(url("/plans/new"));
  const section = page.getByTestId("plan-section-export");
  await expect(section).toContainText("Metrics export");
  await section.getByLabel("To Prometheus (remote write)").selectOption("true");
  await journey.shot("plan-form");
  await page.getByRole("tab", { name: "YAML" }).click();
  await expect.poll(() => planYamlText(page)).toMatch(/^export:\n {2}prometheus: true$/m);
});
