import { describe, expect, it } from "vitest";
import { Me } from "@throng/protocol/api";
import { SsoDomainView, SsoProviderView, SsoSettings } from "@throng/protocol/sso";
import { auditLog } from "./testing/audit-log";
import { startTestOidcIdp, type IdpAccount } from "./testing/test-oidc-idp";
import { messageOf, ssoBrowser as browser } from "./testing/sso-browser";
import { ssoBedPerFile } from "./testing/sso-bed";

const PASSWORD = "correct-horse-battery";
/** The people the identity provider knows, with the groups it vouches for. */
const IDP_ACCOUNTS: IdpAccount[] = [
  { email: "ada@acme.test", name: "Ada", groups: ["engineering", "throng-admins"] },
  { email: "bob@acme.test", name: "Bob", groups: ["engineering"] },
  { email: "eve@acme.test", name: "Eve", groups: [] },
  {
    email: "mallory@acme.test",
    claimedEmail: "mallory@elsewhere.test",
    name: "Mallory",
    groups: ["throng-admins"],
  },
];
const bed = ssoBedPerFile(
  () => startTestOidcIdp(IDP_ACCOUNTS),
  (idp) => idp.issuer,
);
let provider: SsoProviderView;

/** Signs in through the organisation's provider as `email`; returns the browser and where Throng sent it. */
async function signInWithSso(email: string) {
  const { api, idp } = bed();
  const b = browser(api.url);
  const url = await b.startSignIn(email);
  expect(url.startsWith(`${idp.issuer}/`)).toBe(true);
  const callback = await b.followToThrong(url);
  const landed = await b.send("GET", callback);
  return { b, callback, status: landed.status, location: landed.headers.get("location") ?? "" };
}

describe("company sign-in through a real OIDC provider (issue 30)", () => {
  it("an admin proves the email domain by DNS TXT and adds the OIDC provider by its issuer", async () => {
    const { admin, dns, idp } = bed();
    const claimed = SsoDomainView.parse(
      (await admin.request("POST", "/api/sso/domains", { domain: "acme.test" })).json,
    );
    expect(claimed.verified).toBe(false);
    const early = await admin.request("POST", "/api/sso/domains/acme.test/verify");
    expect(early.status).toBe(409);
    expect(messageOf(early.json)).toContain(claimed.txtValue);

    dns.publishTxt(claimed.txtName, claimed.txtValue);
    expect(SsoDomainView.parse((await admin.request("POST", "/api/sso/domains/acme.test/verify")).json).verified).toBe(
      true,
    );

    const added = await admin.request("POST", "/api/sso/providers", {
      protocol: "oidc",
      name: "Acme IdP",
      domains: ["acme.test"],
      issuer: idp.issuer,
      clientId: "throng",
      clientSecret: "s3cret-of-the-client",
      scopes: ["openid", "email", "profile", "groups"],
      roleClaim: "groups",
      roleRules: [{ value: "throng-admins", role: "admin" }],
    });
    expect(added.status, JSON.stringify(added.json)).toBe(201);
    provider = SsoProviderView.parse(added.json);
    expect(provider.active).toBe(true);
    expect(provider.oidc?.clientSecret).toBe("set");
    expect(JSON.stringify(added.json)).not.toContain("s3cret-of-the-client");
    idp.registerClient({
      clientId: "throng",
      clientSecret: "s3cret-of-the-client",
      redirectUri: provider.serviceProvider.redirectUri!,
    });
    // Another application at the same provider that (wrongly) shares Throng's redirect URI.
    idp.registerClient({
      clientId: "other-app",
      clientSecret: "another-secret",
      redirectUri: provider.serviceProvider.redirectUri!,
    });
  });

  it("a new person of the domain signs in through the provider, joins the organisation just in time with the role mapped from groups", async () => {
    const { admin } = bed();
    const { b, status, location } = await signInWithSso("ada@acme.test");
    expect(status).toBe(302);
    expect(location.includes("/sign-in")).toBe(false);
    const me = Me.parse(await (await b.send("GET", "/api/me")).json());
    const adminMe = Me.parse((await admin.request<Me>("GET", "/api/me")).json);
    expect(me.user.email).toBe("ada@acme.test");
    expect(me.organization.id).toBe(adminMe.organization.id);
    expect(me.role).toBe("admin");

    expect((await auditLog(admin)).map((e) => e.action)).toEqual(
      expect.arrayContaining(["sso.domain-verified", "sso.provider-added", "sso.signed-in", "sso.member-joined"]),
    );
  });

  it("the callback cannot be replayed: its state was used up by the first sign-in", async () => {
    const { b, callback } = await signInWithSso("eve@acme.test");
    const again = await b.send("GET", callback);
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toMatch(/\/sign-in\?error=/);
    expect(again.headers.getSetCookie().some((c) => c.includes("session_token=") && !c.includes("Max-Age=0"))).toBe(
      false,
    );
  });

  it("a provider vouching for an email outside the organisation's verified domains signs nobody in", async () => {
    const { api } = bed();
    const { b, location } = await signInWithSso("mallory@acme.test");
    expect(location).toMatch(/\/sign-in\?error=sso_domain_not_verified/);
    expect((await b.send("GET", "/api/me")).status).toBe(401);
    expect(
      await api.db.selectFrom("user").select("id").where("email", "=", "mallory@elsewhere.test").execute(),
    ).toEqual([]);
  });

  it("a code the provider issued to another client is refused: Throng redeems codes only as its own client", async () => {
    const b = browser(bed().api.url);
    const forged = new URL(await b.startSignIn("eve@acme.test"));
    forged.searchParams.set("client_id", "other-app");
    const landed = await b.send("GET", await b.followToThrong(forged.toString()));
    expect(landed.headers.get("location")).toMatch(/\/sign-in\?error=invalid_provider/);
    expect((await b.send("GET", "/api/me")).status).toBe(401);
  });

  it("an email in a domain nobody verified gets plain words, not a provider", async () => {
    const answer = await browser(bed().api.url).send("POST", "/api/sso/sign-in", { email: "someone@unproven.test" });
    expect(answer.status).toBe(404);
    expect(messageOf(await answer.json())).toContain("unproven.test");
  });

  it("Require SSO: a member's password no longer signs in, the owner's does (audit-logged), and the SSO session keeps working", async () => {
    const { api, admin } = bed();
    // Bob had a password account before the company set SSO up; signing in through the provider links it.
    const b = browser(api.url);
    expect(
      (await b.send("POST", "/api/auth/sign-up/email", { name: "Bob", email: "bob@acme.test", password: PASSWORD }))
        .status,
    ).toBe(200);
    const sso = await signInWithSso("bob@acme.test");
    expect(sso.status).toBe(302);
    expect(Me.parse(await (await sso.b.send("GET", "/api/me")).json()).role).toBe("member");

    expect((await admin.request("PUT", "/api/sso/requirement", { requireSso: true })).status).toBe(200);
    expect(SsoSettings.parse((await admin.request("GET", "/api/sso")).json).requireSso).toBe(true);

    const refused = await browser(api.url).send("POST", "/api/auth/sign-in/email", {
      email: "bob@acme.test",
      password: PASSWORD,
    });
    expect(refused.status).toBe(403);
    expect(messageOf(await refused.json())).toContain("requires single sign-on");

    const owner = await browser(api.url).send("POST", "/api/auth/sign-in/email", {
      email: admin.email,
      password: PASSWORD,
    });
    expect(owner.status).toBe(200);
    const audit = (await auditLog(admin)).map((e) => e.action);
    expect(audit).toEqual(expect.arrayContaining(["sso.required", "sso.break-glass-sign-in"]));

    expect((await sso.b.send("GET", "/api/me")).status).toBe(200);
  });
});
