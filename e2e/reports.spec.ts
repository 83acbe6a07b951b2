// Reports as a load tester uses them: a step-up run's report (sentence, SLO verdicts, capacity evidence),
// CSV/JSON exports, the PDF, a public share link opened without a session and then revoked, two runs
// compared, estimates saved for two builds and their change on the target page, and the calculator's
// documented example. Runs are seeded through the API with the browser's session; screenshots go to e2e/artifacts/.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./support/test";
import {
  artifacts,
  createStepUpPlan,
  enrolAgent,
  finishedRun,
  pageJourney,
  stamp,
  url,
  signUp,
} from "./support/e2e-env";

const journey = pageJourney("reports", { downloads: true, clipboard: true });
const { start, startTarget, scratch } = journey;
let page: Page;
const runIds: string[] = [];
let planId = "";
let shareUrl = "";

const shot = (target: Page, name: string) =>
  target.screenshot({ path: join(artifacts, `reports-${name}.png`), fullPage: true });

/** The page must not scroll sideways at this width: everything fits or wraps. */
async function expectNoSidewaysScroll(target: Page) {
  const overflow = await target.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow, "horizontal overflow in px").toBeLessThanOrEqual(0);
}

async function freshVisitor(browser: Browser) {
  const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  return { visitor, guest: await visitor.newPage() };
}

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  page = journey.page();
});

test("two finished step-up runs of a plan with SLOs, seeded through the API", async () => {
  test.setTimeout(240_000);
  await signUp(page, "Report Reader", "reports");

  await test.step("the empty states say what to do", async () => {
    await page.goto(url("/targets"));
    await expect(page.getByTestId("targets-empty")).toContainText("Save estimate");
    await page.goto(url("/compare"));
    await expect(page.getByTestId("compare-empty")).toContainText("Run a plan at least twice");
  });

  await enrolAgent(page, start, join(scratch, "agent.json"));

  const targetUrl = await startTarget();
  const plan = await createStepUpPlan(page, targetUrl, {
    name: `Capacity ${stamp}`,
    clients: 20,
    durationSec: 8,
    slos: [
      { metric: "rtt-p99-ms", below: 2000 },
      { metric: "error-rate", below: 0.5 },
    ],
  });
  planId = plan.id;
  runIds.push(await finishedRun(page, plan.id, { timeoutMs: 90_000, intervalMs: 1000 }));
  runIds.push(await finishedRun(page, plan.id, { timeoutMs: 90_000, intervalMs: 1000 }));
});

test("the report shows the sentence, verdicts and capacity evidence, exports CSV and JSON, and downloads a PDF", async () => {
  test.setTimeout(90_000);
  await page.goto(url(`/runs/${runIds[0]}/report`));
  const sentence = page.getByTestId("report-sentence");
  await expect(sentence).not.toBeEmpty();
  await expect(page.getByTestId("report-verdict")).toHaveText("passed");
  await expect(page.getByTestId("slo-row")).toHaveCount(2);
  await expect(page.getByTestId("report-capacity")).toBeVisible();
  await expect(page.getByTestId("capacity-chart")).toBeVisible();
  expect(Number(await page.getByTestId("capacity-chart").getAttribute("data-steps"))).toBeGreaterThan(0);
  await expect(page.getByTestId("report-plan-spec")).toContainText('"step-up"');
  await expect
    .poll(async () => Number((await page.getByTestId("chart-messages").getAttribute("data-points")) ?? 0))
    .toBeGreaterThan(0);
  await expectNoSidewaysScroll(page);
  await shot(page, "report");
  // The step markers' words and the SLO's ("above the chart", 2,000 ms over a few ms) share the round-trip chart's top: none over another.
  await expect(page.getByTestId("chart-rtt").locator(".uplot")).toHaveAttribute("data-label-overlaps", "0");
  await page.getByTestId("chart-rtt").screenshot({ path: join(artifacts, "reports-report-rtt.png") });

  const csv = page.waitForEvent("download");
  await page.getByTestId("export-csv").click();
  const csvFile = await (await csv).path();
  expect(readFileSync(csvFile, "utf8").split("\n").length).toBeGreaterThan(2);
  const report = page.waitForEvent("download");
  await page.getByTestId("export-json").click();
  const parsed = JSON.parse(readFileSync(await (await report).path(), "utf8")) as {
    run: { id: string };
    series: unknown[];
  };
  expect(parsed.run.id).toBe(runIds[0]);
  expect(parsed.series.length).toBeGreaterThan(0);

  // Download PDF: a file the API printed in Chromium, named after the plan and the day the run started.
  const pdfDownload = page.waitForEvent("download");
  await page.getByTestId("download-pdf").click();
  const pdfFile = await pdfDownload;
  expect(pdfFile.suggestedFilename()).toMatch(
    new RegExp(
      `^capacity-${String(stamp)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")}-\\d{4}-\\d{2}-\\d{2}\\.pdf$`,
    ),
  );
  const pdfBytes = readFileSync(await pdfFile.path());
  expect(pdfBytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
  // It says the run's times as this page does (the browser's locale and zone), not ISO text in UTC.
  const pdfWords = execFileSync("pdftotext", [(await pdfFile.path())!, "-"])
    .toString()
    .replace(/\s+/g, " ");
  const times = ((await page.getByTestId("report-times").textContent()) ?? "").replace(/\s+/g, " ");
  expect(times).toMatch(/^started .+ · ended .+$/);
  expect(pdfWords).toContain(times);
  expect(pdfWords).not.toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
  await expect(page.getByTestId("download-pdf")).toHaveText("Download PDF");
  await expect(page.getByTestId("download-pdf-error")).toHaveCount(0);

  // The print stylesheet still lays the page out for paper (a browser's own Print keeps working).
  const text = (await sentence.textContent()) ?? "";
  await page.emulateMedia({ media: "print" });
  await expect(page.getByTestId("share-links")).toBeHidden();
  await expect(page.getByTestId("report-sentence")).toHaveText(text);
  const pdf = await page.pdf({ format: "A4", printBackground: true });
  expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
  expect(pdf.length).toBeGreaterThan(10_000);
  await page.emulateMedia({ media: "screen" });

  await page.setViewportSize({ width: 1024, height: 768 });
  await expectNoSidewaysScroll(page);
  await shot(page, "report-laptop");
  await page.setViewportSize({ width: 1280, height: 900 });
});

test("a share link shows the report without signing in, and nothing once revoked", async ({ browser }) => {
  await page.goto(url(`/runs/${runIds[0]}/report`));
  await expect(page.getByTestId("share-empty")).toBeVisible();
  await page.getByLabel("Link expires after").selectOption({ label: "7 days" });
  await page.getByTestId("create-share-link").click();
  shareUrl = await page.getByTestId("share-url").inputValue();
  expect(shareUrl).toMatch(/\/share\/\S{20,}$/);
  await page.getByTestId("share-created").getByRole("button", { name: /Copy/ }).click();
  await expect(page.getByTestId("share-created")).toContainText("Copied");
  await expect(page.getByTestId("share-link-row")).toHaveCount(1);
  await shot(page, "share-links");

  const sentence = (await page.getByTestId("report-sentence").textContent()) ?? "";
  const { visitor, guest } = await freshVisitor(browser);
  await guest.goto(url(new URL(shareUrl).pathname));
  await expect(guest.getByTestId("report-sentence")).toHaveText(sentence);
  await expect(guest.getByTestId("report-capacity")).toBeVisible();
  await expect(guest.getByRole("navigation")).toHaveCount(0);
  await expect(guest.locator("a[href]")).toHaveCount(0);
  await expect(guest.getByTestId("share-links")).toHaveCount(0);
  await shot(guest, "shared");
  // The shared report's PDF needs no session either.
  const sharedPdf = guest.waitForEvent("download");
  await guest.getByTestId("download-pdf").click();
  expect(
    readFileSync(await (await sharedPdf).path())
      .subarray(0, 5)
      .toString("latin1"),
  ).toBe("%PDF-");

  await page.getByTestId("revoke-share-link").click();
  await expect(page.getByTestId("share-link-row")).toContainText("revoked");
  await guest.reload();
  await expect(guest.getByTestId("share-refused-message")).toContainText("unknown, expired or revoked");
  await expect(guest.getByTestId("report-sentence")).toHaveCount(0);
  await shot(guest, "shared-revoked");
  await visitor.close();
});

test("two runs compared side by side with the change against the first", async () => {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Compare" }).click();
  await expect(page).toHaveURL(/\/compare$/);
  await page.locator(`[data-testid="compare-pick"][data-run-id="${runIds[0]}"]`).check();
  await page.locator(`[data-testid="compare-pick"][data-run-id="${runIds[1]}"]`).check();
  await page.getByTestId("compare-submit").click();
  await expect(page).toHaveURL(new RegExp(`/compare\\?ids=${runIds[0]},${runIds[1]}$`));
  await expect(page.locator('[data-testid="compare-row"][data-figure="messagesPerSec"] td')).toHaveCount(2);
  await expect(
    page.locator('[data-testid="compare-row"][data-figure="messagesPerSec"]').getByTestId("compare-delta"),
  ).toHaveText(/[+−±][\d.]+ %/);
  // SLO rows: the verdict, then each SLO the plan judged, one cell per run.
  await expect(page.locator('[data-testid="compare-slo-row"][data-slo="verdict"] td')).toHaveCount(2);
  await expect(page.locator('[data-testid="compare-slo-row"][data-slo="rtt-p99-ms<2000"] td')).toHaveText([
    /^(met|breached|no data)/,
    /^(met|breached|no data)/,
  ]);
  // Overlaid charts: both runs' seconds on one axis from their start, one legend entry per run besides the x.
  for (const figure of ["rttP99Ms", "messagesPerSec", "errors"]) {
    const chart = page.locator(`[data-testid="compare-chart"][data-figure="${figure}"]`);
    await expect(chart).toHaveAttribute("data-runs", "2");
    await expect(chart).toHaveAttribute("data-seconds", /^[1-9]\d*$/);
    await expect(chart.locator(".u-legend .u-series")).toHaveCount(3);
    // Not hovered, the legend reads the last second (a value, or "ended" for the shorter run), never a bare "—".
    await expect(chart.locator(".u-legend .u-series").nth(1).locator(".u-value")).not.toHaveText("—");
  }
  await expect(page.getByTestId("compare-key").locator("li")).toHaveText([/^Run 1: /, /^Run 2: /]);
  await expectNoSidewaysScroll(page);
  await shot(page, "compare");
});

test("a plan's trend charts its runs over time, each marked by its verdict and opening its run", async () => {
  await page.goto(url(`/plans/${planId}`));
  const trend = page.getByTestId("plan-trend");
  await expect(trend).toHaveAttribute("data-runs", "2");
  await expect(trend).toHaveAttribute("data-passed", "2");
  // p99, error rate, throughput and (a step-up plan) the capacity estimate, a point per run on each.
  for (const figure of ["p99Ms", "errorRate", "messagesPerSec", "estimate"]) {
    await expect(page.locator(`[data-testid="plan-trend-chart"][data-figure="${figure}"]`)).toHaveAttribute(
      "data-runs",
      "2",
    );
  }
  await expect(page.getByTestId("plan-trend-run")).toHaveText([/passed$/, /passed$/]);
  // The plan's SLOs on the figures they judge, and every axis topped by a tick at or above its highest run.
  const chart = (figure: string) => page.locator(`[data-testid="plan-trend-chart"][data-figure="${figure}"]`);
  await expect(chart("p99Ms")).toHaveAttribute("data-threshold", "2000");
  await expect(chart("p99Ms")).toContainText("SLO: Round trip p99 < 2,000 ms");
  await expect(chart("errorRate")).toHaveAttribute("data-threshold", "0.5");
  for (const figure of ["p99Ms", "errorRate", "messagesPerSec", "estimate"]) {
    const [top, highest] = await Promise.all(
      ["data-y-top", "data-highest"].map(async (name) => Number(await chart(figure).getAttribute(name))),
    );
    expect(top, `${figure}: the y axis's top tick over its highest run`).toBeGreaterThanOrEqual(highest!);
  }
  await expectNoSidewaysScroll(page);
  await shot(page, "plan-trend");
  // The points' links, for the keyboard and screen readers (a mouse clicks the point on the chart).
  await expect(page.getByTestId("plan-trend-run").first()).toHaveAttribute("href", `/runs/${runIds[0]}/report`);
  await page.getByTestId("plan-trend-run").first().focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/runs/${runIds[0]}/report$`));
});

test("estimates saved for two builds show the change on the target page", async () => {
  const target = `lobby-${stamp}`;
  for (const [index, build] of ["1.3", "1.4"].entries()) {
    await page.goto(url(`/runs/${runIds[index]}/report`));
    await page.getByLabel("Target name").fill(target);
    await page.getByLabel("Build label").fill(build);
    await page.getByTestId("save-estimate-button").click();
    await expect(page.getByTestId("estimate-saved")).toContainText(`build ${build}`);
  }
  await expect(page.getByTestId("estimate-saved")).toContainText("since build 1.3");
  await shot(page, "estimate-saved");

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Targets" }).click();
  const row = page.locator(`[data-testid="target-row"][data-target="${target}"]`);
  await expect(row).toContainText("1.4");
  await shot(page, "targets");
  await row.getByRole("link", { name: target }).click();
  await expect(page.getByTestId("estimate-row")).toHaveCount(2);
  await expect(page.getByTestId("target-change")).toContainText("since build 1.3");
  await expect(page.getByTestId("target-chart")).toBeVisible();
  await shot(page, "target-history");
});

test("the calculator works the documented example and fills from a run", async () => {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Calculator" }).click();
  const fields: [string, string][] = [
    ["Players per room", "10"],
    ["Messages per player per second", "20"],
    ["Message size", "50"],
    ["Protocol overhead", "28"],
    ["Players on the server", "1000"],
    ["Measured packets-per-second ceiling", "200000"],
  ];
  for (const [label, value] of fields) await page.getByLabel(label, { exact: true }).fill(value);
  await expect(page.getByTestId("calculator-players-value")).toHaveText("1,000");
  await expect(page.getByTestId("calc-room-out")).toHaveText("1,800 msg/s");

  await page.getByLabel("Message size", { exact: true }).fill("");
  await expect(page.getByTestId("field-error-calc-messageBytes")).toHaveText("enter a number");
  await page.getByLabel("Message size", { exact: true }).fill("50");
  await expectNoSidewaysScroll(page);
  await shot(page, "calculator");

  await page.getByLabel("Start from a measured run").selectOption({ index: 1 });
  await page.getByTestId("calculator-fill").click();
  await expect(page.getByTestId("calculator-filled")).toBeVisible();
  await expect(page.getByLabel("Message size", { exact: true })).toHaveValue("64");
  expect(Number(await page.getByLabel("Messages per player per second", { exact: true }).inputValue())).toBeGreaterThan(
    0,
  );
});
