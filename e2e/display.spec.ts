// The dashboard's display defects of issue 18, each checked where a user meets it: the plan form's error summary
// and SLO section, a capacity search's run page (badges, counter, charts and their legends), the share link,
// the token form, the audit log and the sign-in page. Screenshots go to e2e/artifacts/display-*.png.
import { join } from "node:path";
import { expect, test } from "./support/test";
import {
  artifacts,
  createPlan,
  createStepUpPlan,
  json,
  pageJourney,
  stamp,
  startRun,
  url,
  write,
} from "./support/e2e-env";
import { planYamlText } from "./support/plan-yaml";

const journey = pageJourney("display");
const { shot } = journey;
let runId = "";
test.describe.configure({ mode: "serial" });

test("display: sign-in greets a first-time visitor without 'Welcome back'", async () => {
  const page = journey.page();
  // Two page loads and a redirect: 15 s each on a machine five test suites share (measured at load 37 on 2 cores).
  test.setTimeout(60_000);
  // Signed out, the dashboard sends the visitor to sign in without a console error for its /api/me (the fixture checks),
  // once it has asked for the session: seconds on a busy machine.
  await page.goto(url("/"));
  await expect(page).toHaveURL(/\/sign-in$/, { timeout: 15_000 });
  await page.goto(url("/sign-in"));
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await shot("sign-in");
  await expect(page.locator("main")).not.toContainText("Welcome back");
});

test("display: a capacity search's run page: one verdict colour, charts' legends, axes and switch, the share link", async () => {
  test.setTimeout(180_000);
  const { page, targetUrl } = await journey.signUpWithAgentAndTarget("Display Reader", "display");
  const plan = await createStepUpPlan(page, targetUrl, {
    name: `Search ${stamp}`,
    clients: 40,
    durationSec: 12,
    slos: [{ metric: "rtt-p99-ms", below: 0.001 }],
  });
  runId = (await startRun(page, plan.id)).id;
  await page.goto(url(`/runs/${runId}`));
  await expect(page.getByTestId("run-status")).toHaveText(/finished|aborted|failed/, { timeout: 90_000 });
  await expect(page.getByTestId("run-verdict")).toBeVisible();
  await shot("run-ended");

  // The verdict carries the colour; the ended status beside it is grey, never a green "finished" beside a red verdict.
  await expect(page.getByTestId("run-status")).toHaveClass(/\bidle\b/);
  await expect(page.getByTestId("run-remaining")).toHaveCount(0);
  // The coordinated-omission switch sits inside the round-trip chart's card.
  await expect(page.getByTestId("chart-rtt").getByTestId("rtt-corrected-switch")).toBeVisible();
  // Legends read the latest second while no cursor is on a chart, never "--".
  for (const chart of ["chart-connections", "chart-bytes", "chart-rtt"]) {
    const legend = page.getByTestId(chart).locator(".u-legend");
    await expect(legend).toContainText("Time");
    await expect(legend).not.toContainText("--");
  }

  await page.goto(url(`/runs/${runId}/report`));
  await page.getByTestId("create-share-link").click();
  const shareUrl = page.getByTestId("share-url");
  await expect(shareUrl).toBeVisible();
  await shot("share-link");
  // The link's text fits its box: nothing (an underscore's descender) is cut off at the bottom.
  expect(await shareUrl.evaluate((input) => input.scrollHeight <= input.clientHeight + 1)).toBe(true);
});

test("display: a plan no agent may run is refused at Start, naming the agent by its name and the flag, and no run is made", async () => {
  const page = journey.page();
  // An agent started without --allow-scripts cannot run a script plan: since issue 27 §1 the control plane says so
  // before a run exists (it used to start one that failed at 0 s; that failed run's report is no longer reachable here).
  const script = await json<{ sha256: string }>(
    await page.request.post(url("/api/scripts"), {
      data: { name: "bots.mjs", source: "export default async function client() {}\n" },
      ...write,
    }),
    "upload script",
  );
  const plan = await createPlan(page, {
    name: `Refused ${stamp}`,
    target: { protocol: "websocket", url: "ws://127.0.0.1:9/" },
    scenario: { kind: "script", script: { sha256: script.sha256 } },
    load: { clients: 1, durationSec: 5 },
    slos: [{ metric: "error-rate", below: 0.01 }],
  });
  const hostname = (
    await json<{ agents: { hostname: string }[] }>(await page.request.get(url("/api/agents")), "agents")
  ).agents[0]!.hostname;
  const refused = await page.request.post(url(`/api/plans/${plan.id}/runs`), write);
  expect(refused.status()).toBe(409);
  const message = await refused.text();
  expect(message).toContain(`${hostname} does not run scripts`);
  expect(message).toContain("--allow-scripts");
});

test("display: a reader in Germany reads numbers and dates the German way, the same on the page as on its axes", async ({
  browser,
}) => {
  const page = journey.page();
  const german = await browser.newContext({
    storageState: await page.context().storageState(),
    locale: "de-DE",
    timezoneId: "Europe/Berlin",
    viewport: { width: 1280, height: 900 },
  });
  const reader = await german.newPage();
  await reader.goto(url(`/runs/${runId}`));
  // Thousands with a dot, decimals with a comma, dates day first: never en-US numbers beside German dates.
  await expect(reader.getByTestId("summary-messages-sent")).toHaveText(/^\d{1,3}(\.\d{3})*$/);
  await expect(reader.getByTestId("summary-rtt-p99")).toHaveText(/^\d{1,3}(\.\d{3})*(,\d+)? ms$/);
  await expect(reader.locator("header.panel .muted.small")).toContainText(
    /created \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}/,
  );
  await reader.screenshot({ path: join(artifacts, "display-run-de.png"), fullPage: true });
  await german.close();
});

test("display: a run with one second of data draws it inside the plot", async () => {
  const page = journey.page();
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/runs/*/series", async (route) => {
    await held;
    const response = await route.fetch();
    const body = (await response.json()) as { runId: string; points: unknown[] };
    await route.fulfill({ response, json: { ...body, points: body.points.slice(0, 1) } });
  });
  await page.goto(url(`/runs/${runId}`));
  // The run arrives first (the stream's first event), its stored seconds after, seconds later on a busy machine:
  // meanwhile the page says it is reading them, never that none was measured.
  await expect(page.getByTestId("run-summary")).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId("run-charts-reading")).toBeVisible();
  await expect(page.getByTestId("run-charts-none")).toHaveCount(0);
  release();
  await expect(page.getByTestId("chart-connections")).toHaveAttribute("data-points", "1");
  await page.getByTestId("chart-connections").screenshot({ path: join(artifacts, "display-one-point.png") });
  await page.unroute("**/api/runs/*/series");
});

test("display: the plan form names fields by their labels, says what 'default' is, and has an SLO section", async () => {
  const page = journey.page();
  await page.goto(url("/plans/new"));
  await page.getByLabel("Clients", { exact: true }).fill("");
  await page.getByTestId("save-plan").click();
  const summary = page.getByTestId("plan-form-error");
  await expect(summary).toContainText("Load › Clients:");
  await expect(summary).not.toContainText("load.clients");
  // An agent is online, so the line under Load does not say otherwise beside the error.
  await expect(page.getByTestId("plan-connections-per-agent")).not.toContainText("No agent is online");
  await expect(page.getByTestId("plan-connections-per-agent")).toContainText("1 online agent");
  await shot("plan-errors");

  await expect(page.getByLabel("Frame type").locator("option").first()).toHaveText("default (text)");
  await expect(page.getByText("the pong echoes them")).toHaveCount(0);

  const slos = page.getByTestId("plan-section-slos");
  await expect(slos.getByRole("heading", { name: "SLOs" })).toBeVisible();
  await slos.getByRole("button", { name: "Add SLO" }).click();
  await expect(slos.getByLabel("Metric", { exact: true }).locator("option:checked")).toHaveText("Round trip p99");
  await expect(slos.getByLabel("Must stay below", { exact: true })).toHaveValue("50");
  await expect(slos.locator(".field-error")).toHaveCount(0);
  await page.getByLabel("Clients", { exact: true }).fill("10");
  await slos.getByLabel("Must stay below", { exact: true }).fill("");
  await page.getByTestId("save-plan").click();
  await expect(summary).toContainText("SLOs › SLO 1 › Must stay below:");
  await expect(summary).not.toContainText("expected number");
  await shot("plan-slos");

  // Only what a ping-pong plan measures is offered; a rate is typed in percent and stored as the fraction (docs/verdicts.md, "Units").
  const metric = slos.getByLabel("Metric", { exact: true });
  await expect(metric.locator("option")).toHaveText([
    "Round trip p50",
    "Round trip p99",
    "Round trip p99 (corrected)",
    "Connect p99",
    "Error rate",
  ]);
  await metric.selectOption("error-rate");
  await slos.getByLabel("Must stay below", { exact: true }).fill("1.5");
  await expect(slos.locator("#slos-0-below-unit")).toHaveText("%");
  await page.getByRole("tab", { name: "YAML" }).click();
  expect(await planYamlText(page)).toMatch(/- metric: error-rate\s*\n\s*below: 0\.015\n/);
  await page.getByRole("tab", { name: "Form" }).click();
  await expect(slos.getByLabel("Must stay below", { exact: true })).toHaveValue("1.5");
});

test("display: the token scope reads whole, and audit rows name what they touched", async () => {
  const page = journey.page();
  await page.goto(url("/settings/tokens"));
  await page.getByLabel("Scope").selectOption("admin");
  await expect(page.getByTestId("token-scope-hint")).toHaveText("Also manages agents and settings.");
  await page.getByLabel("Token name").fill("display CI");
  await page.getByTestId("create-token").click();
  await expect(page.getByTestId("token-secret")).toBeVisible();
  await shot("tokens");
  await page.goto(url("/settings/audit"));
  const created = page.locator('[data-testid="audit-row"][data-action="api-token.created"]');
  await expect(created).toContainText("Created an API token");
  await expect(created).toContainText("API token “display CI”");
  await expect(created).not.toContainText("api-token.created");
  await shot("audit");
});

test("display: the runs list asks the API for its filters and pages, and says who started each run", async () => {
  const page = journey.page();
  await page.goto(url("/runs"));
  // The capacity search only: the refused plan made no run.
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  await expect(page.getByTestId("run-started-by")).toHaveAttribute("title", /^display-.*@example\.com$/);
  await expect(page.getByTestId("run-range")).toHaveText("Runs 1–1 of 1");
  const asked = page.waitForRequest((request) => /\/api\/runs\?.*outcome=passed/.test(request.url()));
  await page.getByLabel("Verdict").selectOption("passed");
  await asked;
  await expect(page).toHaveURL(/outcome=passed/);
  await expect(page.getByTestId("runs-none-match")).toBeVisible();
  await page.getByLabel("Verdict").selectOption({ label: "SLO failed" });
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  await expect(page.getByTestId("run-row").getByTestId("run-verdict")).toHaveAttribute("data-outcome", "breached");
  await shot("runs");
  const refused = await page.request.get(url("/api/runs?limit=0"));
  expect(refused.status()).toBe(400);
  expect(await refused.text()).toMatch(/limit/);
});
