// Issue 26 §2, the workflow: a plan with two network cohorts built in the form (with an SLO naming one), run over
// UDP against the reference target on a real agent, whose conditions apply per datagram; the run page shows each
// cohort's second live and a latency chart with a line per cohort, and the report, the share page and the PDF a
// section per cohort. Screenshots in e2e/artifacts/.
import { join } from "node:path";
import { expect, test } from "./support/test";
import { artifacts, baseUrl, enrolAgent, json, pageJourney, signUp, stamp, url } from "./support/e2e-env";
import { planEditorText } from "./support/plan-yaml";

const journey = pageJourney("cohorts");
const { start, scratch } = journey;
const write = { headers: { origin: baseUrl } };
const RUN_SECONDS = 25;

/** The reference target with UDP on a free port; resolves with that port once it serves. */
function startUdpTarget(): Promise<number> {
  const target = start(["target", "--host", "127.0.0.1", "--port", "0", "--udp-port", "0"]);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`target did not start: ${target.output.join("")}`)), 15_000);
    target.child.stdout?.on("data", () => {
      const match = /target udp on 127\.0\.0\.1:(\d+)/.exec(target.output.join(""));
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
  });
}

test("network cohorts: built in the plan form, live on the run page with a chart per cohort, a section each in the report", async () => {
  const page = journey.page();
  test.setTimeout(240_000);
  await signUp(page, "Cohort Planner", "cohorts");
  await enrolAgent(page, start, join(scratch, "agent.json"));
  const udpPort = await startUdpTarget();

  await page.goto(url("/plans/new"));
  await page.getByLabel("Plan name").fill(`Cohorts ${stamp}`);
  await page.getByLabel("Protocol", { exact: true }).selectOption("udp");
  const target = page.getByTestId("plan-section-target");
  await target.getByLabel("Host", { exact: true }).fill("127.0.0.1");
  await target.getByLabel("Port", { exact: true }).fill(String(udpPort));
  await page.getByLabel("Ping interval").fill("200");
  await page.getByLabel("Clients", { exact: true }).fill("10");
  await page.getByLabel("Duration", { exact: true }).fill(String(RUN_SECONDS));

  // Two cohorts: the first starts named and filled (a tenth of the clients, 50 ms away), the second named apart.
  const network = page.getByTestId("plan-section-network");
  await network.getByRole("button", { name: "Add cohort" }).click();
  await expect(page.locator("#network-0-name")).toHaveValue("mobile");
  await expect(page.locator("#network-0-share")).toHaveValue("0.1");
  // Each field says its unit and the schema's limits.
  await expect(page.locator("#network-0-lossPercent-unit")).toHaveText("%");
  await expect(page.locator("#network-0-lossPercent-hint")).toContainText("0 to 100 %.");
  await page.locator("#network-0-share").fill("0.3");
  await page.locator("#network-0-delayMs").fill("40");
  await page.locator("#network-0-jitterMs").fill("5");
  await network.getByRole("button", { name: "Add cohort" }).click();
  await expect(page.locator("#network-1-name")).toHaveValue("wifi");
  // A share and a number of clients both given: saving is refused, the error names the field and what to do.
  await page.locator("#network-1-clients").fill("2");
  await page.getByTestId("save-plan").click();
  await expect(page.getByTestId("field-error-network-1-share")).toContainText("give either share");
  await expect(page).toHaveURL(/\/plans\/new$/);
  await page.locator("#network-1-share").fill("");
  await expect(page.getByTestId("field-error-network-1-share")).toHaveCount(0);
  await page.locator("#network-1-delayMs").fill("5");
  // Loss on the cohort without an SLO: a lost ping holds its client until its time-out.
  await page.locator("#network-1-lossPercent").fill("5");

  // An SLO judged on the mobile cohort's clients only, its cohort chosen from the plan's.
  const slos = page.getByTestId("plan-section-slos");
  await slos.getByRole("button", { name: "Add SLO" }).click();
  await page.locator("#slos-0-metric").selectOption("rtt-p99-ms");
  await page.locator("#slos-0-below").fill("2000");
  await slos.locator("details.options summary").first().click();
  const cohort = page.locator("#slos-0-cohort");
  await expect(cohort.locator("option")).toHaveText(["the whole run (every client)", "mobile", "wifi"]);
  await cohort.selectOption("mobile");
  await page.screenshot({ path: join(artifacts, "cohorts-plan-form.png"), fullPage: true });

  // The JSON view says what the form says.
  await page.getByRole("tab", { name: "JSON" }).click();
  const spec = JSON.parse(await planEditorText(page, "plan-json")) as { network: unknown; slos: unknown };
  expect(spec.network).toEqual([
    { name: "mobile", share: 0.3, delayMs: 40, jitterMs: 5 },
    { name: "wifi", clients: 2, delayMs: 5, lossPercent: 5 },
  ]);
  expect(spec.slos).toEqual([{ metric: "rtt-p99-ms", below: 2000, cohort: "mobile" }]);
  await page.getByRole("tab", { name: "Form" }).click();
  await page.getByTestId("save-plan").click();
  await expect(page).toHaveURL(/\/plans\/[0-9a-f-]{36}$/);
  await page.getByTestId("start-run").click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = /\/runs\/([0-9a-f-]{36})$/.exec(page.url())![1]!;

  // Live: each cohort's latest second, and the chart with a line per cohort beside all clients.
  const rows = page.getByTestId("cohort-live-row");
  await expect(rows).toHaveCount(2, { timeout: 60_000 });
  const mobile = page.locator('[data-testid="cohort-live-row"][data-cohort="mobile"]');
  await expect(mobile.locator("td").nth(2)).toHaveText(/^\d[\d.,]* ms$/, { timeout: 60_000 });
  await expect(page.locator('[data-testid="cohort-live-row"][data-cohort="wifi"] td').nth(2)).toHaveText(
    /^\d[\d.,]* ms$/,
  );
  const chart = page.getByTestId("chart-cohort-latency");
  await expect
    .poll(async () => Number((await chart.getAttribute("data-points")) ?? 0), { timeout: 30_000 })
    .toBeGreaterThanOrEqual(3);
  await expect(chart).toHaveAttribute("data-thresholds", "1");
  await page.screenshot({ path: join(artifacts, "cohorts-run-live.png"), fullPage: true });

  // Ended: the chart stays; the report has a section per cohort, its network as planned and its own SLO verdict.
  await expect(page.getByTestId("run-status")).toHaveText(/finished/, { timeout: (RUN_SECONDS + 60) * 1000 });
  await expect(page.getByTestId("cohort-live-table")).toHaveCount(0);
  await expect(page.getByTestId("chart-cohort-latency")).toBeVisible();
  await page.goto(url(`/runs/${runId}/report`));
  const sections = page.getByTestId("report-cohort");
  await expect(sections).toHaveCount(2, { timeout: 30_000 });
  const mobileSection = page.locator('[data-testid="report-cohort"][data-cohort="mobile"]');
  await expect(mobileSection.getByTestId("report-cohort-conditions")).toHaveText(
    "30 % of the clients: delay 40 ms ± 5 ms, each way; applied per datagram",
  );
  await expect(mobileSection.getByTestId("report-cohort-rtt-p99")).toHaveText(/ ms$/);
  await expect(mobileSection.getByTestId("report-cohort-slo")).toHaveAttribute("data-status", "met");
  // The mobile cohort's round trip carries its 40 ms each way; wifi's only 5 ms each way.
  const p50 = async (name: string) =>
    Number(
      (
        (await page
          .locator(`[data-testid="report-cohort"][data-cohort="${name}"]`)
          .getByTestId("report-cohort-rtt-p50")
          .textContent()) ?? ""
      ).replace(/[^\d.]/g, ""),
    );
  expect(await p50("mobile")).toBeGreaterThanOrEqual(80);
  expect(await p50("wifi")).toBeLessThan(80);
  await expect(
    page.locator('[data-testid="report-cohort"][data-cohort="wifi"]').getByTestId("report-cohort-conditions"),
  ).toHaveText("2 clients: delay 5 ms, loss 5 %, each way; applied per datagram");
  await page.screenshot({ path: join(artifacts, "cohorts-report.png"), fullPage: true });

  // The share page shows the same sections; the PDF prints.
  const link = await json<{ url: string }>(
    await page.request.post(url(`/api/runs/${runId}/share-links`), { data: {}, ...write }),
    "share link",
  );
  await page.goto(url(new URL(link.url).pathname));
  await expect(page.getByTestId("report-cohort")).toHaveCount(2, { timeout: 30_000 });
  const pdf = await page.request.get(url(`/api/runs/${runId}/report.pdf`));
  expect(pdf.ok(), `PDF: HTTP ${pdf.status()}`).toBe(true);
});
