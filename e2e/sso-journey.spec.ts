// Issue 30, single sign-on end to end in the browser: an admin sets it up on Settings → Single sign-on (domains
// proven by a DNS TXT record, an OIDC and a SAML identity provider with role rules), new people sign in through a
// real OIDC provider (panva's oidc-provider) and a real SAML IdP (built with samlify), both on loopback, and join
// the organisation just in time with their mapped roles; then the admin requires SSO and a member's password is
// refused. The API was started with SSO_DNS_SERVERS at E2E_DNS_SERVER, where this journey's DNS server listens.
import type { Browser, Page } from "@playwright/test";
import { startTestDns } from "../apps/api/src/testing/test-dns";
import { startTestOidcIdp } from "../apps/api/src/testing/test-oidc-idp";
import { startTestSamlIdp } from "../apps/api/src/testing/test-saml-idp";
import { expect, test } from "./support/test";
import { artifacts, json, signUp, stamp, url } from "./support/e2e-env";

const oidcDomain = `oidc-${stamp}.test`;
const samlDomain = `saml-${stamp}.test`;
const memberPassword = `member-pw-${stamp}`;

async function freshPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

async function role(page: Page): Promise<{ role: string; orgId: string }> {
  const me = await json<{ role: string; organization: { id: string } }>(await page.request.get(url("/api/me")), "me");
  return { role: me.role, orgId: me.organization.id };
}

/** On the sign-in page: the work email, then “Sign in with SSO”, which leaves for the identity provider. */
async function startSso(page: Page, email: string) {
  await page.goto(url("/sign-in"));
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
}

/** On the SAML IdP's own sign-in page (once it has loaded): the email, then Sign in, which posts back to Throng. */
async function signInAtSamlIdp(page: Page, email: string) {
  await expect(page.getByRole("heading", { name: "Test SAML IdP" })).toBeVisible({ timeout: 15_000 });
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(url("/"), { timeout: 30_000 });
}

/** Claims a domain on the page, publishes the TXT record it shows, and checks it. */
async function proveDomain(page: Page, dns: Awaited<ReturnType<typeof startTestDns>>, domain: string) {
  await page.getByLabel("Email domain", { exact: true }).fill(domain);
  await page.getByRole("button", { name: "Add domain" }).click();
  const row = page.locator(`[data-testid="sso-domain-row"][data-domain="${domain}"]`);
  await expect(row).toContainText("Not verified yet");
  dns.publishTxt(await row.getByTestId("sso-txt-name").innerText(), await row.getByTestId("sso-txt-value").innerText());
  await row.getByRole("button", { name: `Check the TXT record of ${domain}` }).click();
  await expect(row).toContainText("Verified");
}

test("sso: an admin sets up OIDC and SAML on Settings → Single sign-on, new people join through each with their mapped role, and Require SSO refuses a member's password", async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  const dnsServer = process.env.E2E_DNS_SERVER ?? "";
  expect(dnsServer, "npm test hands the journeys E2E_DNS_SERVER").not.toBe("");
  const dns = await startTestDns(Number(dnsServer.split(":")[1]));
  const oidc = await startTestOidcIdp([
    { email: `ada@${oidcDomain}`, name: "Ada", groups: ["engineering", "throng-admins"] },
  ]);
  const saml = await startTestSamlIdp([
    { email: `sam@${samlDomain}`, name: "Sam", groups: ["qa"] },
    { email: `bob@${samlDomain}`, name: "Bob", groups: [] },
  ]);
  try {
    await signUp(page, "SSO Admin", "sso-admin");
    const admin = await role(page);

    await test.step("the admin proves both domains and adds an OIDC and a SAML provider with role rules", async () => {
      await page.goto(url("/settings/sso"));
      await expect(page.getByTestId("sso-requirement")).toContainText("SSO is not required.");
      await expect(page.getByTestId("sso-session-lifetime")).toContainText("lasts 24 hours from its sign-in");
      await proveDomain(page, dns, oidcDomain);
      await proveDomain(page, dns, samlDomain);

      const form = page.getByTestId("sso-provider-form");
      await form.getByLabel("Name").fill("Acme OIDC");
      await form.getByLabel("Email domains").fill(oidcDomain);
      await form.getByLabel("Issuer URL").fill(oidc.issuer);
      await form.getByLabel("Client ID").fill("throng");
      await form.getByLabel("Client secret").fill("journey-client-secret");
      await form.getByLabel("Role rules").fill("throng-admins = admin");
      await form.getByRole("button", { name: "Add provider" }).click();
      const oidcCard = page.locator('[data-testid="sso-provider"][data-provider-name="Acme OIDC"]');
      await expect(oidcCard.getByTestId("sso-provider-status")).toHaveText(`Signs in ${oidcDomain}`);
      await expect(oidcCard).toContainText("secret set, never shown");
      oidc.registerClient({
        clientId: "throng",
        clientSecret: "journey-client-secret",
        redirectUri: await oidcCard.getByTestId("sso-redirect-uri").innerText(),
      });

      await form.getByLabel("SAML 2.0").check();
      await form.getByLabel("Name").fill("Acme SAML");
      await form.getByLabel("Email domains").fill(samlDomain);
      await form.getByLabel("IdP metadata URL").fill(saml.metadataUrl);
      await form.getByLabel("Role attribute").fill("groups");
      await form.getByLabel("Role rules").fill("qa = viewer");
      await form.getByRole("button", { name: "Add provider" }).click();
      const samlCard = page.locator('[data-testid="sso-provider"][data-provider-name="Acme SAML"]');
      await expect(samlCard.getByTestId("sso-provider-status")).toHaveText(`Signs in ${samlDomain}`);
      await expect(samlCard.getByTestId("sso-provider-roles")).toHaveText(
        "groups has “qa” → viewer; anyone else → member",
      );
      saml.registerServiceProvider({
        entityId: await samlCard.getByTestId("sso-entity-id").innerText(),
        acsUrl: await samlCard.getByTestId("sso-acs-url").innerText(),
      });
      await page.screenshot({ path: `${artifacts}sso-settings.png`, fullPage: true });
    });

    await test.step("a new person signs in through the OIDC provider and joins as admin (mapped from groups)", async () => {
      const ada = await freshPage(browser);
      await startSso(ada, `ada@${oidcDomain}`);
      await expect(ada).toHaveURL(url("/"), { timeout: 30_000 });
      expect(await role(ada)).toEqual({ role: "admin", orgId: admin.orgId });
      await ada.context().close();
    });

    await test.step("a new person signs in through the SAML IdP's own page and joins as viewer (mapped from the groups attribute)", async () => {
      const sam = await freshPage(browser);
      await startSso(sam, `sam@${samlDomain}`);
      await signInAtSamlIdp(sam, `sam@${samlDomain}`);
      expect(await role(sam)).toEqual({ role: "viewer", orgId: admin.orgId });
      await sam.context().close();
    });

    await test.step("a person who had a password account signs in with SAML once and joins as member", async () => {
      const bob = await freshPage(browser);
      await bob.goto(url("/sign-up"));
      await bob.getByLabel("Name", { exact: true }).fill("Bob");
      await bob.getByLabel("Email", { exact: true }).fill(`bob@${samlDomain}`);
      await bob.getByLabel("Password", { exact: true }).fill(memberPassword);
      await bob.getByRole("button", { name: "Create account" }).click();
      await expect(bob.getByTestId("getting-started")).toBeVisible({ timeout: 15_000 });
      await bob.context().clearCookies();
      await startSso(bob, `bob@${samlDomain}`);
      await signInAtSamlIdp(bob, `bob@${samlDomain}`);
      expect(await role(bob)).toEqual({ role: "member", orgId: admin.orgId });
      await bob.context().close();
    });

    await test.step("the admin requires SSO on the page; the member's password is then refused with what to do", async () => {
      await page.goto(url("/settings/sso"));
      await page.getByRole("button", { name: "Require SSO" }).click();
      await expect(page.getByTestId("sso-requirement")).toContainText("SSO is required.");
      const bob = await freshPage(browser);
      await bob.goto(url("/sign-in"));
      await bob.getByLabel("Email", { exact: true }).fill(`bob@${samlDomain}`);
      await bob.getByLabel("Password", { exact: true }).fill(memberPassword);
      await bob.getByRole("button", { name: "Sign in", exact: true }).click();
      await expect(bob.getByTestId("auth-error")).toContainText(
        "requires single sign-on: use “Sign in with SSO” with your work email",
      );
      await expect(bob).toHaveURL(/\/sign-in$/);
      await bob.screenshot({ path: `${artifacts}sso-password-refused.png` });
      await bob.context().close();

      await page.goto(url("/settings/audit"));
      for (const action of [
        "Required single sign-on",
        "Joined through SSO",
        "Added an identity provider",
        "Verified an email domain",
      ]) {
        await expect(page.getByText(action).first()).toBeVisible();
      }
    });
  } finally {
    await oidc.close();
    await saml.close();
    dns.close();
  }
});
