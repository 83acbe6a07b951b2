// The plan editor's YAML and JSON views are CodeMirror, not textareas: their text is read line by line as the editor
// shows it (a plan is short enough to be drawn whole) and replaced the way a paste does.
import type { Page } from "@playwright/test";
import { expect } from "./test";

/** The test id of each text view's editor (its content area adds `-content`). */
export type PlanTextView = "plan-yaml" | "plan-json";

async function editorReady(page: Page, view: PlanTextView) {
  await expect(page.getByTestId(view)).toHaveAttribute("data-editor", "codemirror");
}

export async function planEditorText(page: Page, view: PlanTextView): Promise<string> {
  await editorReady(page, view);
  return (await page.getByTestId(view).locator(".cm-line").allTextContents()).join("\n");
}

export const planYamlText = (page: Page) => planEditorText(page, "plan-yaml");

/**
 * Replaces the whole text by pasting it over a select-all. Not locator.fill: Chromium's editing command for it
 * can wrap text in styled spans, which the page's CSP (no inline styles) reports.
 */
export async function fillPlanEditor(page: Page, view: PlanTextView, text: string): Promise<void> {
  await pastePlanEditor(page, view, text);
  await expect.poll(() => planEditorText(page, view)).toBe(text);
}

/** The paste alone, for a text too long to read back (the editor draws only the lines in view). */
export async function pastePlanEditor(page: Page, view: PlanTextView, text: string): Promise<void> {
  await editorReady(page, view);
  const content = page.getByTestId(`${view}-content`);
  await content.click();
  await page.keyboard.press("ControlOrMeta+a");
  await content.evaluate((element, pasted) => {
    const data = new DataTransfer();
    data.setData("text/plain", pasted);
    element.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

export const fillPlanYaml = (page: Page, text: string) => fillPlanEditor(page, "plan-yaml", text);
