// Accounts, teams and security as two people live them: an owner invites a second user by link, the
// second joins as a viewer (reads plans, cannot write them), is promoted to member; the owner makes an
// API token that works until revoked, restricts run targets, and finds all of it in the audit log.
// Screenshots of every settings page go to e2e/artifacts/settings-*.png.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./support/test";

const baseUrl = (process.env.E2E_BASE_URL ?? "").replace(/\/+$/, "");
const apiUrl = (process.env.E2E_API_URL ?? "").replace(/\/+$/, "");
const artifacts = fileURLToPath(new URL("./artifacts/", import.meta.url));
const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const ownerEmail = `owner-${stamp}@example.com`;
const guestEmail = `guest-${stamp}@example.com`;
const password = `pw-${stamp}`;
const planName = `Shared plan ${stamp}`;

const url = (path: string) => `${baseUrl}${path}`;
const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(artifacts, `settings-${name}.png`), fullPage: true });

async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
  return context.newPage();
}

async function fillAccount(page: Page, name: string, email: string) {
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
}

/** GET /api/plans straight at the API with a Bearer token, as a CI job would. */
const plansWithToken = (token: string) =>
  fetch(`${apiUrl}/api/plans`, { headers: { authorization: `Bearer ${token}` } });

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  test.skip(!baseUrl || !apiUrl, "npm test sets E2E_BASE_URL and E2E_API_URL");
  mkdirSync(artifacts, { recursive: true });
});

test("an owner invites a viewer, promotes them, manages an API token and target rules, and audits it all", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const owner = await newPage(browser);
  const guest = await newPage(browser);
  let link = "";

  await test.step("the owner signs up and seeds a plan", async () => {
    await owner.goto(url("/sign-up"));
    await fillAccount(owner, "Olivia Owner", ownerEmail);
    await expect(owner).toHaveURL(`${baseUrl}/`);
    const plan = {
      name: planName,
      target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
      scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
      load: { clients: 5, durationSec: 5 },
    };
    // The browser's session cookie, through the web proxy; the API's CSRF guard wants the web origin.
    const created = await owner.request.post(url("/api/plans"), { data: plan, headers: { origin: baseUrl } });
    expect(created.status(), await created.text()).toBe(201);
  });

  await test.step("the owner creates a viewer invitation and sees the link once", async () => {
    await owner.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await expect(owner).toHaveURL(/\/settings\/members$/);
    await owner.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Invitations" }).click();
    await expect(owner.getByTestId("invitations-empty")).toBeVisible();
    await owner.getByLabel("Role", { exact: true }).selectOption("viewer");
    await owner.getByLabel("Link expires after").selectOption({ label: "7 days" });
    await owner.getByTestId("create-invitation").click();
    link = (await owner.getByTestId("invitation-link-value").textContent()) ?? "";
    expect(link).toMatch(/\/invite\/thr_inv_/);
    await owner.getByTestId("invitation-link").getByRole("button", { name: /Copy/ }).click();
    await expect(owner.getByTestId("invitation-link")).toContainText("Copied");
    await expect(owner.locator('[data-testid="invitation-row"][data-role="viewer"]')).toHaveCount(1);
    await shot(owner, "invitations");
  });

  await test.step("a second person signs up from the link and joins as viewer", async () => {
    await guest.goto(url("/invite/thr_inv_not-a-real-link"));
    // A link the API does not know says so before anyone signs up, rather than inviting them to accept it.
    await expect(guest.getByRole("heading", { name: "This invitation link cannot be used" })).toBeVisible();
    await expect(guest.getByTestId("invitation-preview-refused")).toContainText(/unknown, expired, used or revoked/);
    await shot(guest, "invite-signed-out");
    await fillAccount(guest, "Gus Guest", guestEmail);
    // A bad link is refused in the API's words; the real one then works.
    await guest.getByTestId("accept-invitation").click();
    await expect(guest.getByTestId("invitation-error")).toContainText(/unknown, expired, used or revoked/);

    await guest.goto(link);
    await expect(guest.getByTestId("invitation-email")).toHaveText(guestEmail);
    await expect(guest.getByTestId("invitation-preview")).toHaveText(/^Join .+ as viewer$/);
    await shot(guest, "invite-signed-in");
    await guest.getByTestId("accept-invitation").click();
    // Joining lands on the organisation's Home (the overview), not on a page of its parts.
    await expect(guest).toHaveURL(url("/"));
    await expect(guest.getByRole("heading", { level: 1, name: "Home" })).toBeVisible();
    await expect(guest.locator("#org-switcher option:checked")).toHaveText(/\(viewer\)$/);
    await guest.goto(url("/agents"));
    await expect(guest.getByTestId("install-not-for-role")).toBeVisible();
    await expect(guest.getByRole("button", { name: "Create enrolment token" })).toHaveCount(0);
    // The empty fleet does not tell a viewer to use the token form they do not have.
    await expect(guest.getByTestId("agents-empty")).toContainText("An admin or owner of the organisation adds them");
    await shot(guest, "viewer-agents");
  });

  await test.step("the viewer reads plans but gets no controls to write or run them", async () => {
    await guest.goto(url("/plans"));
    await expect(guest.locator(`[data-testid="plan-row"][data-plan-name="${planName}"]`)).toBeVisible();
    await expect(guest.getByRole("link", { name: "New plan" })).toHaveCount(0);
    await expect(guest.getByTestId("start-run")).toHaveCount(0);
    await expect(guest.getByRole("link", { name: /^Clone/ })).toHaveCount(0);
    await shot(guest, "viewer-plans");
    await guest.goto(url("/settings/members"));
    await expect(guest.getByTestId("member-role")).toHaveCount(0);
    await expect(
      guest.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Audit log" }),
    ).toHaveCount(0);
    await guest.goto(url("/settings/audit"));
    await expect(guest.getByTestId("not-for-role")).toBeVisible();
  });

  await test.step("the owner makes the viewer a member, who can then create plans", async () => {
    await owner.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Members" }).click();
    const row = owner.locator(`[data-testid="member-row"][data-email="${guestEmail}"]`);
    await expect(row).toHaveAttribute("data-role", "viewer");
    await row.getByLabel(`Role of ${guestEmail}`, { exact: true }).selectOption("member");
    await row.getByRole("button", { name: `Save role of ${guestEmail}` }).click();
    await expect(row).toHaveAttribute("data-role", "member");
    await shot(owner, "members");

    await guest.goto(url("/plans"));
    await expect(guest.getByRole("link", { name: "New plan" })).toBeVisible();
  });

  await test.step("the second person switches back to their own organisation", async () => {
    const switcher = guest.getByLabel("Organisation", { exact: true });
    const own = await guest.locator("#org-switcher option", { hasText: "(owner)" }).getAttribute("value");
    await switcher.selectOption(own ?? "");
    await guest.getByTestId("switch-org").click();
    await expect(guest.locator("#org-switcher option:checked")).toHaveText(/\(owner\)$/);
    await expect(guest.locator(`[data-testid="plan-row"][data-plan-name="${planName}"]`)).toHaveCount(0);
  });

  await test.step("the owner creates an API token, sees it once, uses it, revokes it", async () => {
    await owner.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "API tokens" }).click();
    await expect(owner.getByTestId("tokens-empty")).toBeVisible();
    await owner.getByTestId("create-token").click();
    await expect(owner.getByTestId("field-error-token-name")).toBeVisible();
    await owner.getByLabel("Token name").fill("nightly CI");
    await owner.getByLabel("Scope").selectOption("read");
    await owner.getByTestId("create-token").click();
    const token = (await owner.getByTestId("token-secret-value").textContent()) ?? "";
    expect(token).toMatch(/^thr_api_/);
    await shot(owner, "tokens");
    await owner.getByRole("button", { name: "Done, hide it" }).click();
    await expect(owner.getByTestId("token-secret")).toHaveCount(0);
    await expect(owner.getByText(token)).toHaveCount(0);

    const allowed = await plansWithToken(token);
    expect(allowed.status).toBe(200);
    expect(JSON.stringify(await allowed.json())).toContain(planName);

    await owner.reload();
    const row = owner.locator('[data-testid="token-row"][data-token-name="nightly CI"]');
    await expect(row.getByTestId("token-last-used")).not.toHaveText("never");
    await row.getByRole("button", { name: "Revoke token nightly CI" }).click();
    await owner.getByRole("dialog").getByRole("button", { name: "Revoke token" }).click();
    await expect(row).toHaveAttribute("data-state", "revoked");
    expect((await plansWithToken(token)).status).toBe(401);
  });

  await test.step("the owner saves a target allow-list; a bad rule gets a field error", async () => {
    await owner.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Organisation" }).click();
    const rules = owner.getByLabel("Target allow-list");
    await rules.fill("127.0.0.1:7070\n*.example.com\n[::1]:9000");
    await owner.getByLabel("Max clients per run").fill("5000");
    await owner.getByTestId("save-settings").click();
    await expect(owner.getByTestId("settings-status")).toHaveText("Saved.");
    await owner.reload();
    await expect(rules).toHaveValue("127.0.0.1:7070\n*.example.com\n[::1]:9000");
    await expect(owner.getByLabel("Max clients per run")).toHaveValue("5000");

    await rules.fill("127.0.0.1:7070\n*.example.com\n[::1]:9000\nnot a rule!");
    await owner.getByTestId("save-settings").click();
    await expect(owner.getByTestId("field-error-allowList")).toContainText("Line 4 (not a rule!)");
    await expect(rules).toHaveAttribute("aria-invalid", "true");
    await shot(owner, "organisation");
  });

  await test.step("a plan off the allow-list says so on its page, with where an admin changes the limits", async () => {
    const plan = await owner.request.post(url("/api/plans"), {
      data: {
        name: "Off the list",
        target: { protocol: "websocket", url: "ws://10.9.9.9:7070/ws" },
        scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
        load: { clients: 5, durationSec: 5 },
      },
      headers: { origin: baseUrl },
    });
    expect(plan.status()).toBe(201);
    await owner.goto(url(`/plans/${((await plan.json()) as { id: string }).id}`));
    await expect(owner.getByTestId("plan-warnings")).toContainText("cannot start");
    await expect(
      owner.getByTestId("plan-warnings").getByRole("link", { name: "Settings → Organisation" }),
    ).toBeVisible();
    await shot(owner, "plan-warnings");
    await owner.goto(url("/settings/organisation"));
  });

  await test.step("the audit log shows each of these actions", async () => {
    await owner.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Audit log" }).click();
    for (const action of [
      "invitation.created",
      "member.joined",
      "member.role-changed",
      "api-token.created",
      "api-token.revoked",
      "settings.changed",
    ]) {
      await expect(owner.locator(`[data-testid="audit-row"][data-action="${action}"]`).first()).toBeVisible();
    }
    await expect(owner.locator('[data-testid="audit-row"][data-action="member.role-changed"]')).toContainText(
      "viewer → member",
    );
    await shot(owner, "audit");
  });

  await test.step("the owner signs out everywhere: every session ends, this one too", async () => {
    await owner.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Members" }).click();
    await owner.getByTestId("sign-out-everywhere").click();
    await owner.getByRole("dialog").getByTestId("confirm-action").click();
    await expect(owner).toHaveURL(/\/sign-in/);
    expect((await owner.request.get("/api/me")).status()).toBe(401);
  });
});
