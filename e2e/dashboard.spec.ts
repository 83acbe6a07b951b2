// The dashboard journeys a load tester takes: install agents (every variant), label them, plan every scenario
// (form, YAML, JSON, import, export, clone), run and watch live (reload mid-run, abort), find runs again
// (filters), and revoke an agent. Screenshots of each page go to e2e/artifacts/.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Page } from "@playwright/test";
import { expect, test } from "./support/test";
import { artifacts, pageJourney, stamp, url, signUp } from "./support/e2e-env";
import { fillPlanYaml, planEditorText, planYamlText } from "./support/plan-yaml";

const journey = pageJourney("dashboard", { downloads: true, clipboard: true });
const { start, startTarget, scratch, shot } = journey;
let page: Page;
let targetUrl = "";
let planName = "";
/** Console reports of anything the Content-Security-Policy blocked, on any page of the journeys. */
const cspReports: string[] = [];
/** Uncaught exceptions in the page; each journey fails on the first one. */
const pageErrors: string[] = [];

/** Neither the page nor a table scrolls sideways at this width: everything fits or wraps. */
async function expectNoSidewaysScroll() {
  const overflow = await page.evaluate(() =>
    Math.max(
      document.documentElement.scrollWidth - document.documentElement.clientWidth,
      ...[...document.querySelectorAll(".table-wrap")].map((wrap) => wrap.scrollWidth - wrap.clientWidth),
    ),
  );
  expect(overflow, "horizontal overflow in px").toBeLessThanOrEqual(0);
}

/** The same checks on a laptop-sized window, then back to 1280. */
async function expectFitsLaptop(name: string) {
  await page.setViewportSize({ width: 1024, height: 720 });
  await expectNoSidewaysScroll();
  await shot(`${name}-1024`);
  await page.setViewportSize({ width: 1280, height: 900 });
}

test.describe.configure({ mode: "serial" });

/** The run journey's time-out, and how long its plan runs: longer, so the run ends only when the journey aborts it. */
const RUN_JOURNEY_MS = 120_000;
const RUN_SECONDS = 300;

test.beforeAll(async () => {
  page = journey.page();
  page.on("pageerror", (error) => pageErrors.push(`${page.url()}: ${error.message}\n${error.stack ?? ""}`));
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) cspReports.push(`${page.url()}: ${message.text()}`);
  });
  targetUrl = await startTarget();
});

test.afterEach(() => {
  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});

test("agents: empty state, every install variant with a copy button, an agent joins, labels are edited", async () => {
  test.setTimeout(90_000);
  await signUp(page, "Dash Tester", "dash");
  await expect(page.getByTestId("agents-empty")).toContainText("Create an enrolment token");
  await shot("agents-empty");

  await page.getByLabel("Token valid for").selectOption({ label: "1 hour" });
  const answer = page.waitForResponse(
    (response) => response.url().endsWith("/api/enrolment-tokens") && response.request().method() === "POST",
  );
  await page.getByTestId("create-enrolment-token").click();
  const created = (await (await answer).json()) as { commands: { npx: string; node: string } };
  // The hour it was made for, in the unit the Tokens page uses ("in 1 h"), never "in 60 min" a second later.
  await expect(page.getByTestId("enrolment-expiry")).toContainText("until it expires in 1 h (");
  const tabs = page.getByRole("tablist", { name: "Ways to install the agent" });
  const variants = {
    "Install script": /^curl -fsSL (\S+)\/agent\/install\.sh \| sh -s -- --token \S+$/,
    npx: /^npx --yes (\S+)\/agent\/throng-agent\.tgz connect --server \1 --token \S+$/,
    "Throng checkout": /^node \S*throng-agent\.mjs connect --server \S+ --token \S+$/,
    Container:
      /^docker run -d --name throng-agent --restart unless-stopped --network host throng-agent connect --server \S+ --token \S+$/,
    Kubernetes:
      /^helm install throng-agents infra\/helm\/throng --set controlPlane\.enabled=false --set agents\.enabled=true --set agents\.replicas=2 --set agents\.server=\S+ --set agents\.enrolment\.token=\S+$/,
  };
  for (const [label, pattern] of Object.entries(variants)) {
    await tabs.getByRole("tab", { name: label }).click();
    await expect(page.getByRole("tabpanel").locator('code[data-testid^="install-command-"]')).toHaveText(pattern);
  }
  // The container command is run as shown by npm run test:deploy (infra/deploy/test-deploy.ts) against the image
  // infra/docker/agent.Dockerfile builds; the Kubernetes one is rendered and validated by infra/helm/chart.int.test.ts.
  await expect(tabs.getByRole("tab")).toHaveText(Object.keys(variants));
  await tabs.getByRole("tab", { name: "Container" }).click();
  await expect(page.getByRole("tabpanel")).toContainText(
    "docker build --network host -f infra/docker/agent.Dockerfile -t throng-agent .",
  );
  // Keyboard: arrow keys move between the tabs.
  await tabs.getByRole("tab", { name: "Install script" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(tabs.getByRole("tab", { name: "npx" })).toHaveAttribute("aria-selected", "true");
  await page.getByRole("button", { name: /Copy npx command/ }).click();
  const npx = await page.evaluate(() => navigator.clipboard.readText());
  expect(npx).toBe(created.commands.npx);
  await tabs.getByRole("tab", { name: "Install script" }).click();
  const script = (await page.getByTestId("install-command-script").textContent()) ?? "";
  await shot("agents-install");

  // What each shown command downloads is served by the API: the installer, and the npm package npx installs
  // (apps/api/src/agent-npx.int.test.ts runs the npx command itself against a real API).
  const scriptUrl = /curl -fsSL (\S+) /.exec(script)![1]!;
  const served = await page.request.get(scriptUrl);
  expect(served.status(), scriptUrl).toBe(200);
  expect(await served.text()).toContain("throng-agent");
  const packageUrl = /^npx --yes (\S+) /.exec(npx)![1]!;
  const agentPackage = await page.request.get(packageUrl);
  expect(agentPackage.status(), packageUrl).toBe(200);
  const tar = gunzipSync(await agentPackage.body()).toString("latin1");
  expect(tar).toContain("package/package.json");
  expect(tar).toContain('"throng-agent": "throng-agent.mjs"');

  await tabs.getByRole("tab", { name: "Throng checkout" }).click();
  const command = ((await page.getByTestId("install-command-node").textContent()) ?? "").trim().split(/\s+/);
  start([...command.slice(2), "--config", join(scratch, "agent.json"), "--label", "rig=e2e"]);
  const row = page.locator('[data-testid="agent-row"][data-status="online"]');
  await expect(row).toHaveCount(1, { timeout: 30_000 });
  await expect(row.getByTestId("agent-labels")).toContainText("rig=e2e");
  await expect(row.getByTestId("agent-cores")).not.toBeEmpty();

  await row.getByTestId("edit-labels").click();
  const dialog = page.getByTestId("agent-labels-dialog");
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await row.getByTestId("edit-labels").click();
  await dialog.getByRole("button", { name: "Add label" }).click();
  await dialog.getByLabel("Label 2 name").fill("bad name");
  await dialog.getByLabel("Label 2 value").fill("x");
  await dialog.getByTestId("save-labels").click();
  await expect(dialog.locator(".field-error")).toContainText("letters, digits");
  await dialog.getByLabel("Label 2 name").fill("region");
  await dialog.getByLabel("Label 2 value").fill("eu-west");
  await dialog.getByTestId("save-labels").click();
  await expect(dialog).toBeHidden();
  await expect(row.getByTestId("agent-labels")).toContainText("region=eu-west");
  await expectNoSidewaysScroll();
  await shot("agents");
  await expectFitsLaptop("agents");
});

test("plans: every scenario and transport has its form; YAML and JSON views, import, export, save, clone", async () => {
  test.setTimeout(60_000);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Plans" }).click();
  await expect(page.getByTestId("plans-empty")).toBeVisible();
  await page.getByRole("link", { name: "New plan" }).first().click();
  await expect(page).toHaveURL(/\/plans\/new$/);

  // Every variant the schema lists draws its own fields.
  const scenario = page.getByLabel("Scenario type");
  await expect(scenario).toHaveValue("ping-pong");
  const kinds = await scenario
    .locator("option")
    .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value).filter(Boolean));
  expect(kinds).toContain("ping-pong");
  for (const kind of kinds) {
    await scenario.selectOption(kind);
    await expect(scenario).toHaveValue(kind);
    await expect(page.getByTestId("plan-section-scenario").locator(".field-error")).toHaveCount(0);
  }
  const protocol = page.getByLabel("Protocol", { exact: true });
  for (const value of await protocol
    .locator("option")
    .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))) {
    await protocol.selectOption(value);
  }
  await protocol.selectOption("websocket");
  await scenario.selectOption("ping-pong");
  await shot("plan-form-variants");

  planName = `Journey ${stamp}`;
  await page.getByLabel("Plan name").fill(planName);
  await page.getByLabel("Target URL").fill(targetUrl);
  await page.getByLabel("Clients", { exact: true }).fill("8");
  await page.getByLabel("Duration", { exact: true }).fill("40");
  await page.getByLabel("Ping interval").fill("250");
  await expect(page.getByTestId("plan-rate")).toContainText("≈ 32 messages/s");

  // The same plan as YAML: edit it there, come back to the form.
  await page.getByRole("tab", { name: "YAML" }).click();
  await expect.poll(() => planYamlText(page)).toContain(`name: ${planName}`);
  await fillPlanYaml(page, (await planYamlText(page)).replace("clients: 8", "clients: 0"));
  await expect(page.getByTestId("plan-form-error")).toContainText("Load › Clients: must be at least 1");
  await fillPlanYaml(page, (await planYamlText(page)).replace("clients: 0", "clients: 6"));
  await expect(page.getByTestId("plan-form-error")).toHaveCount(0);
  await shot("plan-yaml");
  await page.getByRole("tab", { name: "JSON" }).click();
  expect(JSON.parse(await planEditorText(page, "plan-json")).load.clients).toBe(6);
  await page.getByRole("tab", { name: "Form" }).click();
  await expect(page.getByLabel("Clients", { exact: true })).toHaveValue("6");

  // Import a file with an agent selection, export it back.
  const imported = {
    name: `${planName} (imported)`,
    target: { protocol: "websocket", url: targetUrl },
    scenario: { kind: "ping-pong", intervalMs: 500, messageBytes: 64 },
    load: { clients: 4, durationSec: 30 },
    agents: { labels: { region: "eu-west" }, onLost: "abort" },
  };
  await page.getByTestId("import-plan-file").setInputFiles({
    name: "imported.plan.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(imported)),
  });
  await expect(page.getByTestId("import-notice")).toContainText("Imported imported.plan.json");
  await expect(page.getByLabel("Plan name")).toHaveValue(imported.name);
  await expect(page.getByLabel("If an agent is lost")).toHaveValue("abort");
  const download = page.waitForEvent("download");
  await page.getByTestId("export-yaml").click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/\.plan\.yaml$/);
  expect(readFileSync((await file.path())!, "utf8")).toContain("onLost: abort");

  // Back to our plan, and a server-side check of the whole thing on save.
  await page.getByLabel("Plan name").fill(planName);
  await page.getByLabel("Clients", { exact: true }).fill("6");
  // Longer than the next journey's whole time-out: its run ends only by the abort it tests, however slowly a busy
  // machine takes it there (a 40 s run once finished on its own before the abort, and the journey failed).
  await page.getByLabel("Duration", { exact: true }).fill(String(RUN_SECONDS));
  await page
    .getByTestId("plan-section-agents")
    .getByRole("button", { name: /Remove label 1/ })
    .click();
  await page.getByLabel("If an agent is lost").selectOption("continue");
  // An SLO far above what the loopback run measures: its words sit at the top of the round-trip chart, where the
  // abort's marker will be too.
  await page.getByTestId("plan-section-slos").getByRole("button", { name: "Add SLO" }).click();
  await page.getByTestId("save-plan").click();
  await expect(page).toHaveURL(/\/plans\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(planName);
  await expect(page.getByTestId("plan-file")).toContainText("clients: 6");
  await expect(page.getByTestId("plan-runs-empty")).toBeVisible();
  // The page's main action is as large as the buttons beside it.
  const [startBox, cloneBox] = await Promise.all([
    page.getByTestId("start-run").boundingBox(),
    page.getByTestId("clone-plan").boundingBox(),
  ]);
  expect(Math.abs(startBox!.height - cloneBox!.height), "Start run's height beside Clone's").toBeLessThanOrEqual(1);
  await shot("plan-detail");

  await page.getByTestId("clone-plan").click();
  await expect(page.getByLabel("Plan name")).toHaveValue(`Copy of ${planName}`);
  await page.getByTestId("save-plan").click();
  await expect(page).toHaveURL(/\/plans\/[0-9a-f-]{36}$/);
  await page.goto(url("/plans"));
  await expect(page.getByTestId("plan-row")).toHaveCount(2);
  await shot("plans");
  await expectFitsLaptop("plans");
});

test("runs: live charts, a reload mid-run keeps the history, abort asks first, the report lists the events", async () => {
  test.setTimeout(RUN_JOURNEY_MS);
  await page.locator(`[data-testid="plan-row"][data-plan-name="${planName}"]`).getByTestId("start-run").click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const points = async () => Number((await page.getByTestId("chart-connections").getAttribute("data-points")) ?? 0);
  await expect.poll(points, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
  await expect(page.getByTestId("run-remaining")).toBeVisible();
  await expect(page.getByTestId("run-agents").getByTestId("run-agent-row")).toHaveCount(1);
  // The agent's own health comes live in "agent-health" messages apart from the points: its CPU chart and row fill.
  const agentCpu = async () => Number((await page.getByTestId("chart-agent-health").getAttribute("data-points")) ?? 0);
  await expect.poll(agentCpu, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  await expect(page.getByTestId("run-agent-row")).toContainText(/\d+ %/);
  await shot("run-live");

  const before = await points();
  await page.reload();
  // A reload loads the page, the session, the stream and the stored series again: seconds on a busy machine.
  await expect.poll(points, { timeout: 30_000 }).toBeGreaterThanOrEqual(before);
  // After a reload the fetched series carries it (joined from the stored snapshots).
  await expect.poll(agentCpu, { timeout: 10_000 }).toBeGreaterThanOrEqual(before);
  await expect(page.getByTestId("run-agent-row")).toContainText(/\d+ %/);
  await expect(page.getByTestId("stream-state")).toHaveAttribute("data-state", "live");
  await expect.poll(points, { timeout: 10_000 }).toBeGreaterThan(before);

  await page.getByTestId("abort-run").click();
  const dialog = page.getByTestId("abort-run-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("run-status")).not.toHaveAttribute("data-status", "aborted");
  await page.getByTestId("abort-run").click();
  await dialog.getByTestId("confirm").click();
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", "aborted", { timeout: 15_000 });
  await expect(page.getByTestId("run-summary").getByTestId("run-event").filter({ hasText: "aborted" })).toHaveCount(1, {
    timeout: 15_000,
  });
  await expect(page.getByTestId("summary-peak-connections")).toHaveText("6", { timeout: 20_000 });
  await expect(page.getByTestId("chart-connections")).toHaveAttribute("data-markers", /[1-9]/);
  // Its verdict says "aborted" too: the one badge carries the verdict's reasons, no second "aborted" beside it.
  await expect(page.locator("h1 span[title^='Not passed']").getByTestId("run-status")).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId("run-verdict")).toHaveCount(0);
  // The reasons are on the page too, not only in the badge's title, naming the person by name.
  await expect(page.getByTestId("run-verdict-reasons")).toContainText("aborted by Dash Tester");
  // The agent's part of the run ended: "done", not the agent's "busy" or "online" of today.
  await expect(page.getByTestId("run-agent-status")).toHaveText("done");
  // The SLO's words and the abort's marker are both on the round-trip chart, neither written over the other.
  const rtt = page.getByTestId("chart-rtt").locator(".uplot");
  await expect(rtt).toHaveAttribute("data-labels", /^[2-9]$/);
  await expect(rtt).toHaveAttribute("data-label-overlaps", "0");
  await shot("run-aborted");
  await page.getByTestId("chart-rtt").screenshot({ path: join(artifacts, "dashboard-run-aborted-rtt.png") });

  await expectFitsLaptop("run");
});

test("runs list: status badges, filters kept in the URL, paging, empty result with a way out", async () => {
  await page.goto(url("/runs"));
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  // Who started it, by name (the email is its title), not by an email's local part.
  await expect(page.getByTestId("run-started-by")).toHaveText("by Dash Tester");
  await expect(page.getByTestId("run-range")).toHaveText("Runs 1–1 of 1");
  await page.getByLabel("Status").selectOption("finished");
  await expect(page).toHaveURL(/status=finished/);
  await expect(page.getByTestId("runs-none-match")).toBeVisible();
  await shot("runs-none-match");
  await page.getByTestId("runs-none-match").getByRole("button", { name: "Clear filters" }).click();
  await page.getByLabel("Status").selectOption("aborted");
  await page.getByLabel("Plan").selectOption({ label: planName });
  const today = await page.evaluate(() => new Date().toLocaleDateString("sv"));
  await page.getByLabel("Created from").fill(today);
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  await expect(page).toHaveURL(/status=aborted/);
  await expect(page).toHaveURL(new RegExp(`from=${today}`));
  await page.reload();
  await expect(page.getByLabel("Status")).toHaveValue("aborted");
  await expect(page.getByTestId("run-row").first()).toHaveAttribute("data-status", "aborted");
  await shot("runs");
  await expectFitsLaptop("runs");
});

test("agents: revoking asks first, then the agent leaves the list", async () => {
  await page.goto(url("/agents"));
  const row = page.getByTestId("agent-row");
  await expect(row).toHaveCount(1, { timeout: 15_000 });
  await row.getByTestId("revoke-agent").click();
  const dialog = page.getByTestId("revoke-agent-dialog");
  await expect(dialog).toContainText("disconnected at once");
  await dialog.getByTestId("confirm").click();
  await expect(page.getByTestId("agent-row")).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByTestId("agents-empty")).toBeVisible();
  expect(cspReports, "CSP violations during the journeys").toEqual([]);

  // The abort is in the audit log, in words, naming the run and its plan.
  await page.goto(url("/settings/audit"));
  const aborted = page.locator('[data-testid="audit-row"][data-action="run.aborted"]');
  await expect(aborted).toContainText("Aborted a run");
  await expect(aborted).toContainText(`of “${planName}”`);
});
