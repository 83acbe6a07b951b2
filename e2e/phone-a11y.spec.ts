// Every main page on a phone and under axe (issue 27 §3): at 390 px nothing is wider than the screen (a table scrolls
// inside its own frame), the navigation folds behind a Menu button, and axe finds no serious or critical violation,
// at a laptop's width and a phone's. Screenshots of each page on the phone go to e2e/artifacts/phone-*.png.
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { artifacts, createPlan, enrolAgent, finishedRun, pageJourney, signUp, stamp, url } from "./support/e2e-env";
import { expect, test } from "./support/test";

const journey = pageJourney("phone");
const PHONE = { width: 390, height: 844 };

/** The serious and critical violations axe finds on the page as it is now, one line each. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(" "))
          .join(", ")}`,
    );
}

/** How far the page is wider than the window, in px: 0 when nothing sticks out. */
const sideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The innermost elements that reach past the screen's right edge, for a failure's message: what to fix. */
const widest = (page: Page) =>
  page.evaluate(() => {
    const edge = document.documentElement.clientWidth;
    const past = [...document.querySelectorAll("main *")].filter((el) => el.getBoundingClientRect().right > edge + 0.5);
    const innermost = past.filter((el) => !past.some((other) => other !== el && el.contains(other)));
    return innermost
      .slice(0, 5)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}.${[...el.classList].join(".")} (right ${Math.round(el.getBoundingClientRect().right)} px)`,
      )
      .join("; ");
  });

test("the main pages fit a phone, fold the navigation behind a menu, and pass axe at a laptop's width and a phone's", async () => {
  const page = journey.page();
  test.setTimeout(300_000);
  await signUp(page, "Phone Reader", "phone");
  await enrolAgent(page, journey.start, join(journey.scratch, "agent.json"));
  const targetUrl = await journey.startTarget();
  const plan = await createPlan(page, {
    name: `Phone ${stamp}`,
    target: { protocol: "websocket", url: targetUrl },
    scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
    load: { clients: 4, durationSec: 3 },
    slos: [{ metric: "rtt-p99-ms", below: 50 }],
  });
  const runId = await finishedRun(page, plan.id, { timeoutMs: 60_000, intervalMs: 1000 });

  const pages: [string, string][] = [
    ["home", "/"],
    ["agents", "/agents"],
    ["plans", "/plans"],
    ["plan", `/plans/${plan.id}`],
    ["plan-new", "/plans/new"],
    ["runs", "/runs"],
    ["run", `/runs/${runId}`],
    ["report", `/runs/${runId}/report`],
    ["compare", "/compare"],
    ["targets", "/targets"],
    ["calculator", "/calculator"],
    ["scripts", "/scripts"],
    ["settings", "/settings/organisation"],
    ["members", "/settings/members"],
    ["tokens", "/settings/tokens"],
    ["audit", "/settings/audit"],
  ];
  for (const viewport of [{ width: 1280, height: 900 }, PHONE]) {
    await page.setViewportSize(viewport);
    for (const [name, path] of pages) {
      await page.goto(url(path));
      // Each page reads its session and data first: seconds on a busy machine.
      await expect(page.locator("main h1").first()).toBeVisible({ timeout: 15_000 });
      await expect(page.locator("main .loading")).toHaveCount(0, { timeout: 15_000 });
      if (viewport === PHONE) {
        expect(await sideways(page), `${path} is wider than a phone: ${await widest(page)}`).toBeLessThanOrEqual(0);
        await page.screenshot({ path: join(artifacts, `phone-${name}.png`), fullPage: true });
      }
      expect(await seriousViolations(page), `axe on ${path} at ${viewport.width} px`).toEqual([]);
    }
  }

  // On the phone the links are behind Menu; one followed folds them away again.
  await page.goto(url("/plans"));
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Runs" })).toBeHidden();
  await nav.getByRole("button", { name: "Menu" }).click();
  await expect(nav.getByRole("button", { name: "Menu" })).toHaveAttribute("aria-expanded", "true");
  await page.screenshot({ path: join(artifacts, "phone-menu.png") });
  await nav.getByRole("link", { name: "Runs" }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(nav.getByRole("link", { name: "Runs" })).toBeHidden();

  // Signed out: the sign-in page, on the phone and under axe.
  await page.context().clearCookies();
  await page.goto(url("/sign-in"));
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  expect(await sideways(page)).toBeLessThanOrEqual(0);
  expect(await seriousViolations(page), "axe on /sign-in").toEqual([]);
  await page.screenshot({ path: join(artifacts, "phone-sign-in.png"), fullPage: true });
});
