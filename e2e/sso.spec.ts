// Issue 30, the sign-in page's single sign-on: "Sign in with SSO" by work email, and the words a failed SSO return
// shows. (The whole sign-in through a real identity provider is proven over HTTP in apps/api/src/sso-oidc.int.test.ts.)
import { expect, test } from "./support/test";
import { baseUrl } from "./support/e2e-env";

test("sso: Sign in with SSO asks for a work email, and says plainly when no organisation signs its domain in", async ({
  page,
}) => {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  await expect(page.getByText("Enter your work email, like you@example.com, to sign in with SSO.")).toBeVisible();
  await page.getByLabel("Email", { exact: true }).fill("someone@nobody-verified-this.test");
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  await expect(page.getByTestId("auth-error")).toContainText(
    "No organisation on this Throng signs in nobody-verified-this.test with single sign-on",
  );
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("sso: a failed SSO return lands on the sign-in page with what went wrong and what to do", async ({ page }) => {
  await page.goto(`${baseUrl}/sign-in?error=state_mismatch`);
  await expect(page.getByTestId("auth-error")).toContainText(
    "This sign-in was already used or took too long. Start again",
  );
});
