// Every journey's `test`: Playwright's, plus a check that the pages it drove logged no console error and threw no
// uncaught exception. A normal journey logs none: a refused form is an answer the page shows (the web's quiet
// refusals), not an error. Journeys import test and expect from here, not from @playwright/test.
import { expect, test as base, type BrowserContext, type Page } from "@playwright/test";

/** Console errors and uncaught exceptions since the current test began, as "url: text". */
const seen: string[] = [];
/** What the current test expects to see logged (allowConsoleErrors). */
const allowed: RegExp[] = [];
const watched = new WeakSet<Page>();

function watchPage(page: Page) {
  if (watched.has(page)) return;
  watched.add(page);
  page.on("console", (message) => {
    if (message.type() === "error") seen.push(`${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => seen.push(`${page.url()}: uncaught ${error.message}`));
}

function watchContext(context: BrowserContext) {
  context.pages().forEach(watchPage);
  context.on("page", watchPage);
}

/** A console error this test causes on purpose (a stream cut to test its reconnect): said where it is expected. */
export function allowConsoleErrors(pattern: RegExp) {
  allowed.push(pattern);
}

export const test = base.extend<{ quietConsole: undefined }>({
  // Journeys open their own contexts in beforeAll (one page kept across a file's tests): those are watched too.
  browser: [
    async ({ browser }, use) => {
      const newContext = browser.newContext.bind(browser);
      browser.newContext = async (options) => {
        const context = await newContext(options);
        watchContext(context);
        return context;
      };
      await use(browser);
    },
    { scope: "worker" },
  ],
  context: async ({ context }, use) => {
    watchContext(context);
    await use(context);
  },
  quietConsole: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from its first parameter, which must be a destructuring pattern; this one needs none.
    async ({}, use) => {
      seen.length = 0;
      allowed.length = 0;
      await use(undefined);
      const unexpected = seen.filter((line) => !allowed.some((pattern) => pattern.test(line)));
      expect(
        unexpected,
        "console errors or uncaught exceptions in the journey's pages (a normal journey logs none)",
      ).toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
