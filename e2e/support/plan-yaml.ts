// The plan editor's YAML view is CodeMirror, not a textarea: its text is read line by line as the editor shows it
// (a plan is short enough to be drawn whole) and replaced the way a paste does.
import { expect, type Page } from "@playwright/test";

async function editorReady(page: Page) {
  await expect(page.getByTestId("plan-yaml")).toHaveAttribute("data-editor", "codemirror");
}

export async function planYamlText(page: Page): Promise<string> {
  await editorReady(page);
  return (await page.getByTestId("plan-yaml").locator(".cm-line").allTextContents()).join("\n");
}

export async function fillPlanYaml(page: Page, text: string): Promise<void> {
  await editorReady(page);
  await page.getByTestId("plan-yaml-content").fill(text);
}
