// A load tester writes a scripted client in the browser and runs it against a server nobody here wrote: the starter
// script saved from the Scripts page's editor (and a bundle uploaded from disk), a plan whose scenario is "script"
// built in the form by picking the script from the list, run on a real agent started with --allow-scripts against a
// private redis-server (PING answered by +PONG), and the script's own metrics on the run page and in its summary.
// Screenshots go to e2e/artifacts/scripts-*.png.
import { createHash } from "node:crypto";
import { expect, test } from "./support/test";
import type { RunView } from "@throng/protocol/run";
import { expectRunStatus, json, signUp, stamp, url } from "./support/e2e-env";
import { planYamlText } from "./support/plan-yaml";
import { redisJourney } from "./support/redis-journey";

const journey = redisJourney("scripts");
const COUNTING_BUNDLE = `// Each client counts its start and ticks every 50 ms until the run ends.
export default async function (ctx) {
  ctx.count("started");
  ctx.every(50, () => ctx.count("ticks"));
}
`;

test("a script written from the starter in the browser, picked in the plan form, runs against Redis with its metrics charted", async () => {
  test.setTimeout(180_000);
  const { page, pageErrors, shot } = journey;
  // CodeMirror's styles go into a <style> tag: one the page's CSP refused would show here.
  page.on(
    "console",
    (message) =>
      message.type() === "error" &&
      /Content Security Policy/i.test(message.text()) &&
      pageErrors.push(`${page.url()}: ${message.text()}`),
  );
  await signUp(page, "Script Writer", "scripts");
  const agent = await journey.startAgent("--allow-scripts");

  // The Scripts page, from the menu: empty, then a bundle uploaded from disk gets its hash.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Scripts" }).click();
  await expect(page).toHaveURL(/\/scripts$/);
  await expect(page.getByTestId("scripts-empty")).toBeVisible();
  await page
    .getByTestId("upload-script-file")
    .setInputFiles({ name: "counting.mjs", mimeType: "text/javascript", buffer: Buffer.from(COUNTING_BUNDLE) });
  const countingHash = createHash("sha256").update(COUNTING_BUNDLE).digest("hex");
  await expect(page.getByTestId("upload-script-result")).toContainText(`Stored counting.mjs as ${countingHash}`);
  await expect(page.locator(`[data-testid="script-row"][data-sha256="${countingHash}"]`)).toContainText(
    countingHash.slice(0, 12),
  );

  // New script: the editor (CodeMirror, highlighted) starts with the starter; saved under a name.
  await page.getByTestId("new-script").click();
  await expect(page.getByTestId("script-editor")).toHaveAttribute("data-editor", "codemirror");
  const editor = page.getByTestId("script-editor-content");
  await expect(editor).toContainText('ctx.measure("connect-ms"');
  await expect(page.getByTestId("script-editor").locator(".cm-line span").first()).toBeVisible();
  await expect(page.getByTestId("script-editor").locator(".cm-editor")).toHaveCSS("display", "flex");
  await page.getByLabel("Name", { exact: true }).fill("redis-ping.mjs");
  // An edit in the editor is what gets saved: a comment line at the top.
  await editor.click();
  await page.keyboard.press("Control+Home");
  await page.keyboard.type("// PING Redis, expect +PONG\n");
  await shot("new");
  await page.getByTestId("save-script").click();
  await expect(page).toHaveURL(/\/scripts\/[0-9a-f]{64}$/);
  const sha256 = /\/scripts\/([0-9a-f]{64})$/.exec(page.url())![1]!;
  await expect(page.getByTestId("script-sha256")).toHaveText(sha256);
  await expect(page.getByTestId("script-name")).toHaveText("redis-ping.mjs");
  await expect(page.getByTestId("script-source")).toContainText("// PING Redis, expect +PONG");
  // CodeMirror draws only the lines in view; the whole source is checked as stored.
  const stored = await json<{ source: string }>(await page.request.get(url(`/api/scripts/${sha256}`)), "stored script");
  expect(createHash("sha256").update(stored.source).digest("hex")).toBe(sha256);
  expect(stored.source).toMatch(/^\/\/ PING Redis, expect \+PONG\nimport net from "node:net";/);
  expect(stored.source).toContain('ctx.count("replies")');
  await shot("view");

  // Edit a copy: the stored script's source in the editor; saving stores a new script, the original stays as it was.
  await page.getByTestId("script-edit-copy").click();
  await expect(page).toHaveURL(new RegExp(`/scripts/new\\?from=${sha256}$`));
  await expect(page.getByRole("heading", { name: "Edit a copy" })).toBeVisible();
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue("redis-ping.mjs");
  await expect(editor).toContainText("// PING Redis, expect +PONG");
  await page.getByLabel("Name", { exact: true }).fill("redis-ping-copy.mjs");
  await editor.click();
  await page.keyboard.press("Control+Home");
  await page.keyboard.type("// a copy\n");
  await page.getByTestId("save-script").click();
  await expect(page).toHaveURL(/\/scripts\/[0-9a-f]{64}$/);
  const copyHash = /\/scripts\/([0-9a-f]{64})$/.exec(page.url())![1]!;
  expect(copyHash).not.toBe(sha256);
  const copy = await json<{ source: string }>(await page.request.get(url(`/api/scripts/${copyHash}`)), "copied script");
  expect(copy.source).toBe(`// a copy\n${stored.source}`);
  expect(
    (await json<{ source: string }>(await page.request.get(url(`/api/scripts/${sha256}`)), "original script")).source,
  ).toBe(stored.source);

  // The plan: TCP to Redis, scenario "script" with the script picked from the list, parameters and metrics in the form.
  const planName = `Redis script ${stamp}`;
  await journey.newRedisPlan(planName);
  const scenario = page.getByTestId("plan-section-scenario");
  await page.getByLabel("Scenario type").selectOption("script");
  const picker = scenario.getByTestId("script-picker");
  await expect(picker).toContainText("docs/protocols.md");
  await picker.getByLabel("Script", { exact: true }).selectOption({ label: `redis-ping.mjs (${sha256.slice(0, 12)})` });
  await expect(picker.getByTestId("script-picker-view")).toHaveAttribute("href", `/scripts/${sha256}`);
  await expect(picker.getByTestId("script-picker-new")).toHaveAttribute("href", "/scripts/new");
  const options = scenario.locator("details.options").first();
  if (!(await options.evaluate((details) => (details as HTMLDetailsElement).open)))
    await options.locator("summary").click();
  const parameters = scenario.getByTestId("scenario-parameters-labels");
  for (const [index, [name, value]] of [
    ["message", "PING"],
    ["expect", "+PONG"],
    ["intervalMs", "100"],
  ].entries()) {
    await parameters.getByRole("button", { name: "Add parameter" }).click();
    await parameters.getByLabel(`Parameter ${index + 1} name`).fill(name!);
    await parameters.getByLabel(`Parameter ${index + 1} value`).fill(value!);
  }
  const metrics = scenario.getByTestId("list-scenario-metrics");
  for (const [index, [name, kind]] of [
    ["connect-ms", "histogram"],
    ["reply-ms", "histogram"],
    ["replies", "counter"],
  ].entries()) {
    await metrics.getByRole("button", { name: "Add metric" }).click();
    await metrics.getByLabel("Name", { exact: true }).nth(index).fill(name!);
    await metrics.getByLabel("Kind", { exact: true }).nth(index).selectOption(kind!);
  }
  // An SLO on a declared metric: the select offers the script's own metrics first, then the built-in ones a script
  // measures (no round trip), and a new SLO starts on the first of them, not on rtt-p99.
  await page.getByRole("button", { name: "Add SLO" }).click();
  const slos = page.getByTestId("list-slos");
  await expect(slos.getByLabel("Metric", { exact: true }).locator("option")).toHaveText([
    "connect-ms p50 (script)",
    "connect-ms p99 (script)",
    "reply-ms p50 (script)",
    "reply-ms p99 (script)",
    "replies count (script)",
    "Broadcast p99",
    "Connect p99",
    "Error rate",
  ]);
  await expect(slos.getByLabel("Metric", { exact: true }).locator("option:checked")).toHaveText(
    "connect-ms p99 (script)",
  );
  await slos.getByLabel("Metric", { exact: true }).selectOption("script:reply-ms-p99");
  await slos.getByLabel("Must stay below", { exact: true }).fill("1000");
  await page.getByLabel("Clients", { exact: true }).fill("2");
  await page.getByLabel("Duration", { exact: true }).fill("6");
  await shot("plan-form");

  // The YAML view has the script by hash and the parameters typed (intervalMs a number); back in the form it is still picked.
  await page.getByRole("tab", { name: "YAML" }).click();
  const text = await planYamlText(page);
  expect(text).toContain(`sha256: ${sha256}`);
  expect(text).toMatch(/parameters:\s*\n\s*message: PING\s*\n\s*expect: \+PONG\s*\n\s*intervalMs: 100\n/);
  expect(text).toMatch(/- name: replies\s*\n\s*kind: counter/);
  expect(text).toMatch(/slos:\s*\n\s*- metric: script:reply-ms-p99\s*\n\s*below: 1000/);
  await expect(page.getByTestId("plan-form-error")).toHaveCount(0);
  await page.getByRole("tab", { name: "Form" }).click();
  await expect(scenario.getByTestId("script-picker").getByLabel("Script", { exact: true })).toHaveValue(sha256);
  await page.getByTestId("save-plan").click();
  await expect(page).toHaveURL(/\/plans\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("plan-file")).toContainText(`sha256: ${sha256}`);
  await expect(page.getByTestId("plan-script").getByRole("link")).toHaveAttribute("href", `/scripts/${sha256}`);

  const runId = await journey.startRun(planName);

  // While it runs, the script's own metrics get charts by their names.
  await expect(page.getByTestId("chart-script-latency").getByRole("img")).toHaveAttribute(
    "aria-label",
    /connect-ms p99 .*reply-ms p99/,
    { timeout: 30_000 },
  );
  await expect(page.getByTestId("chart-script-counts").getByRole("img")).toHaveAttribute("aria-label", /replies/);
  await expectRunStatus(page, runId, "finished", { timeoutMs: 60_000, intervalMs: 1000 });
  const run = await json<RunView>(await page.request.get(url(`/api/runs/${runId}`)), "read run");
  expect(run.summary?.errors, `${JSON.stringify(run.summary?.errorsByKind)}\n${agent.output.join("")}`).toBe(0);
  expect(run.summary?.scriptCounts?.replies).toBeGreaterThan(0);
  expect(run.summary?.script?.["connect-ms"]?.count).toBe(2);
  expect(run.summary?.script?.["reply-ms"]?.p99Ms).not.toBeNull();
  expect(run.verdict?.slos.map((slo) => [slo.metric, slo.passed])).toEqual([["script:reply-ms-p99", true]]);
  // The sockets the script opened count as connections, so the load check sees every client held.
  expect(run.verdict?.outcome, JSON.stringify(run.verdict?.reasons)).toBe("passed");

  await expect(page.getByTestId("summary-script-replies")).toHaveText(
    String(run.summary!.scriptCounts!.replies!.toLocaleString("en-US")),
  );
  await expect(page.getByTestId("summary-script-connect-ms-p99")).toContainText("ms");
  await expect(page.getByTestId("chart-script-counts")).not.toHaveAttribute("data-points", "0");
  // A script's own messages are not counted: no message figures or charts reading a true-looking 0.
  await expect(page.getByTestId("summary-messages-per-sec")).toHaveCount(0);
  await expect(page.getByTestId("chart-messages")).toHaveCount(0);
  await shot("run");
  await page.goto(url(`/runs/${runId}/report`));
  await expect(page.getByTestId("report").getByTestId("chart-script-latency")).toBeVisible();
  await expect(page.getByTestId("report").getByTestId("summary-script-replies")).toBeVisible();
  expect(pageErrors, "uncaught errors in the page").toEqual([]);
});
