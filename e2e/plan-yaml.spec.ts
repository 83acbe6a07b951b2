// The plan's YAML view in CodeMirror: a value typed wrong is marked at its line with the form's own words, a YAML
// syntax error at the line it breaks, completion inserts a key from the plan's schema, hovering a key explains it,
// and the form shows what was typed. Screenshots go to e2e/artifacts/plan-yaml-*.png.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { artifacts, baseUrl, json, signUp, stamp, url } from "./support/e2e-env";
import { fillPlanYaml, planYamlText } from "./support/plan-yaml";

const shot = (page: Page, name: string) => page.screenshot({ path: join(artifacts, `plan-yaml-${name}.png`), fullPage: true });

test("the YAML view marks problems in the form's words, completes keys from the schema, and keeps the plan across views", async ({ page }) => {
  test.skip(!baseUrl, "npm test sets E2E_BASE_URL");
  test.setTimeout(120_000);
  mkdirSync(artifacts, { recursive: true });
  const pageErrors: string[] = [];
  const blocked: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => message.type() === "error" && /Content.Security.Policy|Refused to/i.test(message.text()) && blocked.push(message.text()));
  await page.setViewportSize({ width: 1280, height: 900 });
  await signUp(page, "YAML Editor", "plan-yaml");

  const spec = { name: `YAML ${stamp}`, target: { protocol: "websocket", url: "ws://127.0.0.1:9/" }, scenario: { kind: "ping-pong", intervalMs: 500, messageBytes: 64 }, load: { clients: 3, durationSec: 30 } };
  const plan = await json<{ id: string }>(await page.request.post(url("/api/plans"), { data: spec, headers: { origin: baseUrl } }), "create plan");
  await page.goto(url(`/plans/${plan.id}/edit`));
  await page.getByRole("tab", { name: "YAML" }).click();
  const editor = page.getByTestId("plan-yaml");
  await expect(editor).toHaveAttribute("data-editor", "codemirror");
  await expect(editor.locator(".cm-line", { hasText: "clients: 3" })).toBeVisible();
  await expect(editor.locator(".cm-lintRange-error")).toHaveCount(0);
  const line = (text: string | RegExp) => editor.locator(".cm-line").filter({ hasText: text });

  // Type an invalid value: the marker sits on that value, in that line, saying what the form says.
  await line("clients: 3").click();
  await page.keyboard.press("End");
  await page.keyboard.press("Backspace");
  await page.keyboard.type("0");
  const clientsLine = line("clients: 0");
  await expect(clientsLine.locator(".cm-lintRange-error")).toHaveText("0");
  await expect(editor.locator(".cm-lintRange-error")).toHaveCount(1);
  await clientsLine.locator(".cm-lintRange-error").hover();
  await expect(page.locator(".cm-tooltip-lint")).toContainText("Load › Clients: must be at least 1");
  await expect(page.getByTestId("plan-form-error")).toContainText("Load › Clients: must be at least 1");
  await shot(page, "marker");

  // Hovering a key explains it with the form's label and hint.
  await page.mouse.move(0, 0);
  await line("durationSec: 30").getByText("durationSec").hover();
  await expect(page.locator(".cm6-json-schema-hover")).toContainText("Duration");
  await expect(page.locator(".cm6-json-schema-hover")).toContainText("How long the run lasts");
  await shot(page, "hover");
  await page.mouse.move(0, 0);

  // Fix it, then complete a new key of load from the schema and give it a value.
  await clientsLine.click();
  await page.keyboard.press("End");
  await page.keyboard.press("Backspace");
  await page.keyboard.type("5");
  await expect(editor.locator(".cm-lintRange-error")).toHaveCount(0);
  await page.keyboard.press("Enter");
  await page.keyboard.type("join");
  const completion = page.locator(".cm-tooltip-autocomplete");
  await expect(completion).toContainText("joinIntervalMs");
  await shot(page, "completion");
  await completion.getByText("joinIntervalMs", { exact: true }).click();
  await expect(line(/joinIntervalMs:\s*$/)).toHaveCount(1);
  await page.keyboard.type("250");
  await expect(line(/joinIntervalMs: 250$/)).toHaveCount(1);
  await expect(editor.locator(".cm-lintRange-error")).toHaveCount(0);
  await expect(page.getByTestId("plan-form-error")).toHaveCount(0);

  // An enum's values are offered too: the frame type of a WebSocket target.
  await line(/url: ws:/).click();
  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  await page.keyboard.type("fram");
  await completion.getByText("frames", { exact: true }).click();
  // A value left out is named the form's way; typing its first letter offers the enum's values.
  await expect(line(/frames:\s*$/).locator(".cm-lintRange-error")).toHaveCount(1);
  await expect(page.getByTestId("plan-form-error")).toContainText("Target › Frame type: choose one of text, binary");
  await page.keyboard.type("b");
  await expect(completion).toContainText("binary");
  await shot(page, "enum-completion");
  await completion.getByText("binary", { exact: true }).click();
  await expect(line(/frames: "?binary"?$/)).toHaveCount(1);
  await expect(editor.locator(".cm-lintRange-error")).toHaveCount(0);

  // A YAML syntax error is marked at the line it breaks, with the parser's own reason.
  await line(/^name: /).click();
  await page.keyboard.press("End");
  await page.keyboard.type(": [");
  const nameLineNo = (await planYamlText(page)).split("\n").findIndex((text) => text.startsWith("name: ")) + 1;
  await expect(editor.locator(".cm-lintRange-error").first()).toBeAttached();
  await expect(page.getByTestId("plan-form-error")).toContainText("Not valid YAML");
  const markedLine = await editor.locator(".cm-line").evaluateAll((lines) => lines.findIndex((el) => el.querySelector(".cm-lintRange-error")) + 1);
  expect(markedLine).toBe(nameLineNo);
  await shot(page, "syntax-error");
  for (let i = 0; i < 3; i++) await page.keyboard.press("Backspace");
  await expect(editor.locator(".cm-lintRange-error")).toHaveCount(0);

  // Back in the form: the values typed in YAML are there; and the YAML view shows them again.
  await page.getByRole("tab", { name: "Form" }).click();
  await expect(page.getByLabel("Clients", { exact: true })).toHaveValue("5");
  await expect(page.getByLabel("Join interval", { exact: true })).toHaveValue("250");
  await expect(page.getByLabel("Frame type", { exact: true })).toHaveValue("binary");
  await shot(page, "form");
  await page.getByRole("tab", { name: "YAML" }).click();
  const carried = await planYamlText(page);
  expect(carried).toMatch(/^  clients: 5$/m);
  expect(carried).toMatch(/^  joinIntervalMs: 250$/m);

  // A file imported while the YAML view is open replaces the editor's text; a pasted plan is checked like typing.
  const imported = { ...spec, name: `Imported ${stamp}`, load: { clients: 9, durationSec: 20 } };
  await page.getByTestId("import-plan-file").setInputFiles({ name: "imported.plan.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(imported)) });
  await expect.poll(() => planYamlText(page)).toContain(`name: Imported ${stamp}`);
  expect(await planYamlText(page)).toMatch(/^  clients: 9$/m);
  await fillPlanYaml(page, (await planYamlText(page)).replace("durationSec: 20", "durationSec: soon"));
  await expect(line("durationSec: soon").locator(".cm-lintRange-error")).toHaveText("soon");
  await expect(page.getByTestId("plan-form-error")).toContainText("Load › Duration: enter a number");

  expect(pageErrors, "uncaught errors").toEqual([]);
  expect(blocked, "CSP refusals").toEqual([]);
});
