// Security headers on every response of the web origin: pages, the /api proxy and static files; and a page
// that loads and runs under its Content-Security-Policy without a single violation.
import type { APIResponse, Page } from "@playwright/test";
import { expect, test } from "./support/test";

const baseUrl = (process.env.E2E_BASE_URL ?? "").replace(/\/+$/, "");

function expectCommonHeaders(response: APIResponse, what: string) {
  const headers = response.headers();
  expect(headers["x-content-type-options"], `${what}: X-Content-Type-Options`).toBe("nosniff");
  expect(headers["referrer-policy"], `${what}: Referrer-Policy`).toBe("strict-origin-when-cross-origin");
  expect(headers["content-security-policy"], `${what}: Content-Security-Policy`).toContain("frame-ancestors 'none'");
}

test("pages, the /api proxy and static files all carry the security headers", async ({ request }) => {
  const page = await request.get(`${baseUrl}/sign-in`);
  expect(page.status()).toBe(200);
  expectCommonHeaders(page, "page");
  const csp = page.headers()["content-security-policy"]!;
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(csp).toContain("connect-src 'self'");
  expect(csp).not.toContain("unsafe-inline");
  expect(csp).not.toContain("unsafe-eval");
  // Next puts the request's nonce on its own scripts; a second request gets another nonce.
  const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
  const html = await page.text();
  expect(html).toContain(`nonce="${nonce}"`);
  const again = await request.get(`${baseUrl}/sign-in`);
  expect(again.headers()["content-security-policy"]).not.toContain(nonce);

  const api = await request.get(`${baseUrl}/api/me`);
  expect(api.status()).toBe(401);
  expectCommonHeaders(api, "/api proxy");
  expect(api.headers()["content-security-policy"]).toMatch(/^default-src 'none'/);

  const script = /<script src="(\/_next\/static\/[^"]+\.js)"/.exec(html)?.[1];
  expect(script, "a static chunk referenced by the page").toBeTruthy();
  const chunk = await request.get(`${baseUrl}${script}`);
  expect(chunk.status()).toBe(200);
  expectCommonHeaders(chunk, "static chunk");
});

/** Records every CSP violation the page reports, from before its first script. */
async function recordViolations(page: Page) {
  await page.addInitScript(() => {
    (window as unknown as { __cspViolations: string[] }).__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (event) => {
      (window as unknown as { __cspViolations: string[] }).__cspViolations.push(
        `${event.violatedDirective} ${event.blockedURI}`,
      );
    });
  });
}

const violationsOf = (page: Page) =>
  page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);

test("the sign-in page hydrates and works under its CSP with no violation", async ({ page }) => {
  await recordViolations(page);
  await page.goto(`${baseUrl}/sign-in`);
  // Client-side validation only runs once React hydrated, i.e. once Next's scripts were allowed to run.
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByText("Enter an email address like you@example.com.")).toBeVisible();
  expect(await violationsOf(page)).toEqual([]);
});

test("a page that reads the API through zod schemas does so with no CSP violation (zod's eval probe is off)", async ({
  page,
}) => {
  await recordViolations(page);
  // The public share page: no session needed, and it parses the API's answer with the protocol's zod schemas.
  await page.goto(`${baseUrl}/share/thr_shr_not-a-real-link`);
  await expect(page.getByTestId("share-refused-message")).toBeVisible();
  expect(await violationsOf(page)).toEqual([]);
});
