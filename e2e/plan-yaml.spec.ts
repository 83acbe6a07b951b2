// The plan's YAML and JSON views in CodeMirror: a value typed wrong is marked at its line with the form's own words, a
// syntax error at the line it breaks, completion inserts a key from the plan's schema, hovering a key explains it,
// and the form shows what was typed. Screenshots go to e2e/artifacts/plan-yaml-*.png and plan-json-*.png.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./support/test";
import { artifacts, baseUrl, json, signUp, stamp, url } from "./support/e2e-env";
import { fillPlanYaml, pastePlanEditor, planEditorText, planYamlText, type PlanTextView } from "./support/plan-yaml";

const shot = (page: Page, name: string) => page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });

/** Signs up, saves a plan through the API and opens its editor on the given view; page errors and CSP refusals are collected. */
async function openPlanView(page: Page, who: string, tab: "YAML" | "JSON", view: PlanTextView) {
  test.skip(!baseUrl, "npm test sets E2E_BASE_URL");
  test.setTimeout(120_000);
  mkdirSync(artifacts, { recursive: true });
  const pageErrors: string[] = [];
  const blocked: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on(
    "console",
    (message) =>
      message.type() === "error" &&
      /Content.Security.Policy|Refused to/i.test(message.text()) &&
      blocked.push(message.text()),
  );
  await page.setViewportSize({ width: 1280, height: 900 });
  await signUp(page, `${tab} Editor`, who);

  const spec = {
    name: `${tab} ${stamp}`,
    target: { protocol: "websocket", url: "ws://127.0.0.1:9/" },
    scenario: { kind: "ping-pong", intervalMs: 500, messageBytes: 64 },
    load: { clients: 3, durationSec: 30 },
  };
  const plan = await json<{ id: string }>(
    await page.request.post(url("/api/plans"), { data: spec, headers: { origin: baseUrl } }),
    "create plan",
  );
  await page.goto(url(`/plans/${plan.id}/edit`));
  await page.getByRole("tab", { name: tab }).click();
  const editor = page.getByTestId(view);
  await expect(editor).toHaveAttribute("data-editor", "codemirror");
  await expect(editor.locator(".cm-line").filter({ hasText: /clients.*3/ })).toBeVisible();
  /** No problem marked: neither in the text nor in the gutter (whose markers only go once the linter has run again). */
  const unmarked = async () => {
    await expect(editor.locator(".cm-lintRange-error")).toHaveCount(0);
    await expect(editor.locator(".cm-lint-marker-error")).toHaveCount(0);
  };
  await unmarked();
  const line = (text: string | RegExp) => editor.locator(".cm-line").filter({ hasText: text });
  /** The one problem marked: on `marked` in that line, with `message` in its tooltip and in the error summary. */
  const markedOnly = async (at: Locator, marked: string, message: string) => {
    await expect(at.locator(".cm-lintRange-error")).toHaveText(marked);
    await expect(editor.locator(".cm-lintRange-error")).toHaveCount(1);
    await at.locator(".cm-lintRange-error").hover();
    await expect(page.locator(".cm-tooltip-lint")).toContainText(message);
    await expect(page.getByTestId("plan-form-error")).toContainText(message);
  };
  /** Hovers a key's own characters (JSON's keys have no span of their own to hover) and expects each phrase in its explanation. */
  const hoverExplains = async (at: Locator, key: string, phrases: string[]) => {
    await page.mouse.move(0, 0);
    const point = await at.evaluate((element, word) => {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const found = node.textContent?.indexOf(word) ?? -1;
        if (found < 0) continue;
        const range = document.createRange();
        range.setStart(node, found);
        range.setEnd(node, found + word.length);
        const box = range.getBoundingClientRect();
        return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
      }
      throw new Error(`no "${word}" in the line`);
    }, key);
    await page.mouse.move(point.x, point.y);
    for (const phrase of phrases) await expect(page.locator(".cm6-json-schema-hover")).toContainText(phrase);
  };
  const completion = page.locator(".cm-tooltip-autocomplete");
  /** Picks `option` once the completion list offers it; `screenshot` first saves the page with the list open. */
  const pickCompletion = async (option: string, screenshot?: () => Promise<unknown>) => {
    await expect(completion).toContainText(option);
    await screenshot?.();
    await completion.getByText(option, { exact: true }).click();
  };
  return { spec, editor, line, unmarked, markedOnly, hoverExplains, pickCompletion, pageErrors, blocked };
}

test("the YAML view marks problems in the form's words, completes keys from the schema, and keeps the plan across views", async ({
  page,
}) => {
  const { spec, editor, line, unmarked, markedOnly, hoverExplains, pickCompletion, pageErrors, blocked } =
    await openPlanView(page, "plan-yaml", "YAML", "plan-yaml");
  const yamlShot = (name: string) => shot(page, `plan-yaml-${name}`);

  // Type an invalid value: the marker sits on that value, in that line, saying what the form says.
  await line("clients: 3").click();
  await page.keyboard.press("End");
  await page.keyboard.press("Backspace");
  await page.keyboard.type("0");
  const clientsLine = line("clients: 0");
  await markedOnly(clientsLine, "0", "Load › Clients: must be at least 1");
  await yamlShot("marker");

  // Hovering a key explains it with the form's label and hint.
  await hoverExplains(line("durationSec: 30"), "durationSec", ["Duration", "How long the run lasts"]);
  await yamlShot("hover");
  await page.mouse.move(0, 0);

  // Fix it, then complete a new key of load from the schema and give it a value.
  await clientsLine.click();
  await page.keyboard.press("End");
  await page.keyboard.press("Backspace");
  await page.keyboard.type("5");
  await unmarked();
  await page.keyboard.press("Enter");
  await page.keyboard.type("join");
  await pickCompletion("joinIntervalMs", () => yamlShot("completion"));
  await expect(line(/joinIntervalMs:\s*$/)).toHaveCount(1);
  await page.keyboard.type("250");
  await expect(line(/joinIntervalMs: 250$/)).toHaveCount(1);
  await unmarked();
  await expect(page.getByTestId("plan-form-error")).toHaveCount(0);

  // An enum's values are offered too: the frame type of a WebSocket target.
  await line(/url: ws:/).click();
  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  await page.keyboard.type("fram");
  await pickCompletion("frames");
  // A value left out is named the form's way; typing its first letter offers the enum's values.
  await expect(line(/frames:\s*$/).locator(".cm-lintRange-error")).toHaveCount(1);
  await expect(page.getByTestId("plan-form-error")).toContainText("Target › Frame type: choose one of text, binary");
  await page.keyboard.type("b");
  await pickCompletion("binary", () => yamlShot("enum-completion"));
  await expect(line(/frames: "?binary"?$/)).toHaveCount(1);
  await unmarked();

  // A YAML syntax error is marked at the line it breaks, with the parser's own reason.
  await line(/^name: /).click();
  await page.keyboard.press("End");
  await page.keyboard.type(": [");
  const nameLineNo = (await planYamlText(page)).split("\n").findIndex((text) => text.startsWith("name: ")) + 1;
  await expect(editor.locator(".cm-lintRange-error").first()).toBeAttached();
  await expect(page.getByTestId("plan-form-error")).toContainText("Not valid YAML");
  const markedLine = await editor
    .locator(".cm-line")
    .evaluateAll((lines) => lines.findIndex((el) => el.querySelector(".cm-lintRange-error")) + 1);
  expect(markedLine).toBe(nameLineNo);
  await yamlShot("syntax-error");
  for (let i = 0; i < 3; i++) await page.keyboard.press("Backspace");
  await unmarked();

  // Back in the form: the values typed in YAML are there; and the YAML view shows them again.
  await page.getByRole("tab", { name: "Form" }).click();
  await expect(page.getByLabel("Clients", { exact: true })).toHaveValue("5");
  await expect(page.getByLabel("Join interval", { exact: true })).toHaveValue("250");
  await expect(page.getByLabel("Frame type", { exact: true })).toHaveValue("binary");
  await yamlShot("form");
  await page.getByRole("tab", { name: "YAML" }).click();
  const carried = await planYamlText(page);
  expect(carried).toMatch(/^ {2}clients: 5$/m);
  expect(carried).toMatch(/^ {2}joinIntervalMs: 250$/m);

  // A file imported while the YAML view is open replaces the editor's text; a pasted plan is checked like typing.
  const imported = { ...spec, name: `Imported ${stamp}`, load: { clients: 9, durationSec: 20 } };
  await page.getByTestId("import-plan-file").setInputFiles({
    name: "imported.plan.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(imported)),
  });
  await expect.poll(() => planYamlText(page)).toContain(`name: Imported ${stamp}`);
  expect(await planYamlText(page)).toMatch(/^ {2}clients: 9$/m);
  await fillPlanYaml(page, (await planYamlText(page)).replace("durationSec: 20", "durationSec: soon"));
  await expect(line("durationSec: soon").locator(".cm-lintRange-error")).toHaveText("soon");
  await expect(page.getByTestId("plan-form-error")).toContainText("Load › Duration: enter a number");

  expect(pageErrors, "uncaught errors").toEqual([]);
  expect(blocked, "CSP refusals").toEqual([]);
});

test("the JSON view marks problems in the same words as YAML, completes keys and enum values from the schema, and keeps the plan across views", async ({
  page,
}) => {
  const { editor, line, unmarked, markedOnly, hoverExplains, pickCompletion, pageErrors, blocked } = await openPlanView(
    page,
    "plan-json",
    "JSON",
    "plan-json",
  );
  const jsonShot = (name: string) => shot(page, `plan-json-${name}`);
  await expect(page.getByRole("textbox", { name: "Plan as JSON" })).toBeVisible();

  /** Puts the cursor after a line's value, before its comma if it has one. */
  async function endOfValue(text: string | RegExp) {
    await line(text).click();
    await page.keyboard.press("End");
    if ((await line(text).textContent())?.trimEnd().endsWith(",")) await page.keyboard.press("ArrowLeft");
  }

  // Type an invalid value: the marker sits on that value and says what the form says.
  await endOfValue(/"clients": 3/);
  await page.keyboard.press("Backspace");
  await page.keyboard.type("0");
  await markedOnly(line(/"clients": 0/), "0", "Load › Clients: must be at least 1");
  await jsonShot("marker");

  // Hovering a key explains it with the form's label and hint.
  await hoverExplains(line(/"durationSec": 30/), "durationSec", ["Duration", "How long the run lasts"]);
  await jsonShot("hover");
  await page.mouse.move(0, 0);

  // Fix it, then complete a new key of load from the schema (a key's opening quote offers them) and give it a value.
  await endOfValue(/"clients": 0/);
  await page.keyboard.press("Backspace");
  await page.keyboard.type("5");
  await unmarked();
  await line(/"rampUpSec": 0/).click();
  await page.keyboard.press("End");
  await page.keyboard.type(",");
  await page.keyboard.press("Enter");
  await page.keyboard.type('"join');
  await pickCompletion("joinIntervalMs", () => jsonShot("completion"));
  await expect(line(/"joinIntervalMs": $/)).toHaveCount(1);
  await page.keyboard.type("250");
  await expect
    .poll(async () => JSON.parse(await planEditorText(page, "plan-json")).load)
    .toMatchObject({ clients: 5, joinIntervalMs: 250, durationSec: 30 });
  await unmarked();
  await expect(page.getByTestId("plan-form-error")).toHaveCount(0);

  // An enum's values are offered once the value's quote is typed: the frame type of a WebSocket target.
  await line(/"url": "ws:/).click();
  await page.keyboard.press("End");
  await page.keyboard.type(",");
  await page.keyboard.press("Enter");
  await page.keyboard.type('"fram');
  await pickCompletion("frames");
  await expect(line(/"frames": $/)).toHaveCount(1);
  await page.keyboard.type('"');
  await pickCompletion("binary", () => jsonShot("enum-completion"));
  await expect.poll(async () => JSON.parse(await planEditorText(page, "plan-json")).target.frames).toBe("binary");
  await unmarked();

  // A JSON syntax error (a value left out) is marked where parsing stops, with JSON.parse's reason.
  await endOfValue(/"durationSec": 30/);
  for (let i = 0; i < 2; i++) await page.keyboard.press("Backspace");
  await expect(page.getByTestId("plan-form-error")).toContainText("Not valid JSON");
  await expect(editor.locator(".cm-lintRange-error")).toHaveCount(1);
  await expect(line(/"durationSec": ,/).locator(".cm-lintRange-error")).toHaveText(",");
  await editor.locator(".cm-lintRange-error").hover();
  await expect(page.locator(".cm-tooltip-lint")).toContainText("Not valid JSON");
  await jsonShot("syntax-error");
  await page.keyboard.type("20");
  await unmarked();

  // Back in the form: the values typed in JSON are there; and the JSON view shows them again.
  await page.getByRole("tab", { name: "Form" }).click();
  await expect(page.getByLabel("Clients", { exact: true })).toHaveValue("5");
  await expect(page.getByLabel("Join interval", { exact: true })).toHaveValue("250");
  await expect(page.getByLabel("Duration", { exact: true })).toHaveValue("20");
  await expect(page.getByLabel("Frame type", { exact: true })).toHaveValue("binary");
  await page.getByRole("tab", { name: "JSON" }).click();
  const carried = JSON.parse(await planEditorText(page, "plan-json"));
  expect(carried.load).toMatchObject({ clients: 5, durationSec: 20, joinIntervalMs: 250 });
  expect(carried.target.frames).toBe("binary");

  expect(pageErrors, "uncaught errors").toEqual([]);
  expect(blocked, "CSP refusals").toEqual([]);
});

test("a 2.4 MB paste is refused at once in the form's words, and Save sends nothing; too many SLOs are counted in the same words", async ({
  page,
}) => {
  await openPlanView(page, "plan-big", "YAML", "plan-yaml");
  const base = await planYamlText(page);
  // 2.4 MB of SLOs, more than the API takes in one request: never parsed on the page, only measured.
  const slo = "  - metric: rtt-p99-ms\n    below: 50\n";
  const huge = `${base}slos:\n${slo.repeat(Math.ceil(2_400_000 / slo.length))}`;
  const posted: string[] = [];
  page.on(
    "request",
    (request) => request.method() !== "GET" && request.url().includes("/api/plans") && posted.push(request.url()),
  );
  await pastePlanEditor(page, "plan-yaml", huge);
  const summary = page.getByTestId("plan-form-error");
  await expect(summary).toContainText(
    /This plan is 2\.\d MiB; the API takes at most 1 MiB, so it is not checked or saved\./,
  );
  await page.getByTestId("save-plan").click();
  await expect(summary).toContainText("at most 1 MiB");
  expect(posted, "nothing sent for a plan the API cannot take").toEqual([]);
  await page.screenshot({ path: join(artifacts, "plan-yaml-too-large.png") });

  // 21 SLOs: a size the page checks, said as the form says it, not as the validator does.
  await fillPlanYaml(page, `${base}slos:\n${slo.repeat(21)}`);
  await expect(summary).toContainText("SLOs: at most 20 items");
  await expect(summary).not.toContainText("Too big");
});
