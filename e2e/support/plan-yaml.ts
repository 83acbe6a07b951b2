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

/**
 * Replaces the whole text by pasting it over a select-all. Not locator.fill: Chromium's editing command for it
 * can wrap text in styled spans, which the page's CSP (no inline styles) reports.
 */
export async function fillPlanYaml(page: Page, text: string): Promise<void> {
  await editorReady(page);
  const content = page.getByTestId("plan-yaml-content");
  await content.click();
  await page.keyboard.press("ControlOrMeta+a");
  await content.evaluate((element, pasted) => {
    const data = new DataTransfer();
    data.setData("text/plain", pasted);
    element.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
  await expect.poll(() => planYamlText(page)).toBe(text);
}
