import { describe, expect, it } from "vitest";
import { Me } from "@throng/protocol/api";
import { SsoDomainView, SsoProviderView, SsoSettings } from "@throng/protocol/sso";
import { auditLog } from "./testing/audit-log";
import { startTestSamlIdp, type SamlFault, type SamlIdpAccount } from "./testing/test-saml-idp";
import { messageOf, ssoBrowser } from "./testing/sso-browser";
import { ssoBedPerFile } from "./testing/sso-bed";

/** The people the identity provider knows, with the groups it vouches for. */
const IDP_ACCOUNTS: SamlIdpAccount[] = [
  { email: "grace@globex.test", name: "Grace", groups: ["staff", "throng-admins"] },
  { email: "linus@globex.test", name: "Linus", groups: ["staff"] },
  { email: "mal@globex.test", name: "Mal", groups: [] },
];
const bed = ssoBedPerFile(
  () => startTestSamlIdp(IDP_ACCOUNTS),
  (idp) => idp.origin,
);
let provider: SsoProviderView;

/**
 * Signs in through the SAML IdP as `email`: Throng's AuthnRequest to the IdP's sign-in page, the IdP's form post of
 * its SAMLResponse to Throng's ACS. Returns the browser and where the ACS sent it.
 */
async function signInWithSaml(email: string, fault: SamlFault = "none") {
  const { api, idp } = bed();
  const b = ssoBrowser(api.url);
  const url = await b.startSignIn(email);
  expect(url.startsWith(`${idp.origin}/sso?`)).toBe(true);
  const page = await (await b.send("GET", url)).text();
  const field = (html: string, name: string) =>
    html
      .match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1]
      ?.replace(/&quot;/g, '"')
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&") ?? "";
  const signedIn = await (
    await b.send(
      "POST",
      `${idp.origin}/sso/login`,
      new URLSearchParams({ requestId: field(page, "requestId"), RelayState: field(page, "RelayState"), email, fault }),
      idp.origin,
    )
  ).text();
  const acs = signedIn.match(/action="([^"]+)"/)?.[1] ?? "";
  expect(acs).toBe(provider.serviceProvider.acsUrl);
  const landed = await b.send(
    "POST",
    acs,
    new URLSearchParams({ SAMLResponse: field(signedIn, "SAMLResponse"), RelayState: field(signedIn, "RelayState") }),
    idp.origin,
  );
  const location = landed.headers.get("location") ?? "";
  const failure = location.includes("/sign-in?") ? new URL(location, "http://x").searchParams : null;
  return {
    b,
    status: landed.status,
    location,
    error: failure?.get("error") ?? null,
    description: failure?.get("error_description") ?? null,
  };
}

async function signedInUser(b: ReturnType<typeof ssoBrowser>) {
  return (await b.send("GET", "/api/me")).status;
}

describe("company sign-in through a real SAML 2.0 identity provider (issue 30)", () => {
  it("an admin adds the SAML IdP by its metadata URL once the domain is proven; Throng names its ACS URL and entity ID", async () => {
    const { admin, dns, idp } = bed();
    const claimed = SsoDomainView.parse(
      (await admin.request("POST", "/api/sso/domains", { domain: "globex.test" })).json,
    );
    dns.publishTxt(claimed.txtName, claimed.txtValue);
    expect(
      SsoDomainView.parse((await admin.request("POST", "/api/sso/domains/globex.test/verify")).json).verified,
    ).toBe(true);

    const added = await admin.request("POST", "/api/sso/providers", {
      protocol: "saml",
      name: "Globex SAML",
      domains: ["globex.test"],
      metadataUrl: idp.metadataUrl,
      roleClaim: "groups",
      roleRules: [{ value: "throng-admins", role: "admin" }],
      defaultRole: "viewer",
    });
    expect(added.status, JSON.stringify(added.json)).toBe(201);
    provider = SsoProviderView.parse(added.json);
    expect(provider.protocol).toBe("saml");
    expect(provider.active).toBe(true);
    expect(provider.saml?.entityId).toBe(idp.metadataUrl);
    expect(provider.saml?.ssoUrl).toBe(`${idp.origin}/sso`);
    expect(provider.saml?.certificateSha256).toMatch(/^[0-9A-F:]+$/);
    idp.registerServiceProvider({
      entityId: provider.serviceProvider.entityId!,
      acsUrl: provider.serviceProvider.acsUrl!,
    });
  });

  it("a new person signs in through the SAML IdP and joins the organisation just in time with the role mapped from the groups attribute", async () => {
    const { admin } = bed();
    const grace = await signInWithSaml("grace@globex.test");
    expect(grace.error, grace.description ?? "").toBeNull();
    expect(grace.status).toBe(302);
    const me = Me.parse(await (await grace.b.send("GET", "/api/me")).json());
    expect(me.user.email).toBe("grace@globex.test");
    expect(me.organization.id).toBe(Me.parse((await admin.request<Me>("GET", "/api/me")).json).organization.id);
    expect(me.role).toBe("admin");

    const linus = await signInWithSaml("linus@globex.test");
    expect(Me.parse(await (await linus.b.send("GET", "/api/me")).json()).role).toBe("viewer");

    const joined = (await auditLog(admin))
      .filter((e) => e.action === "sso.member-joined")
      .map((e) => [e.target, (e.details as { role?: string }).role]);
    expect(joined).toEqual(
      expect.arrayContaining([
        ["grace@globex.test", "admin"],
        ["linus@globex.test", "viewer"],
      ]),
    );
  });

  it("a forged assertion (its email rewritten after the IdP signed it) signs nobody in and says the signature does not match", async () => {
    const { api } = bed();
    const forged = await signInWithSaml("mal@globex.test", "tampered");
    expect(forged.error).toBe("saml_signature_invalid");
    expect(await signedInUser(forged.b)).toBe(401);
    expect(
      await api.db
        .selectFrom("user")
        .select("id")
        .where("email", "in", ["ceo@globex.test", "mal@globex.test"])
        .execute(),
    ).toEqual([]);
  });

  it("an assertion the IdP did not sign (only the response envelope is signed) is refused: Throng accepts only signed assertions", async () => {
    const unsigned = await signInWithSaml("mal@globex.test", "unsigned");
    expect(unsigned.error).toBe("saml_assertion_unsigned");
    expect(await signedInUser(unsigned.b)).toBe(401);
  });

  it("an expired assertion is refused as expired", async () => {
    const expired = await signInWithSaml("mal@globex.test", "expired");
    expect(expired.error).toBe("saml_assertion_expired");
    expect(await signedInUser(expired.b)).toBe(401);
  });

  it("an assertion from an IdP whose clock runs ten minutes ahead is refused as clock skew", async () => {
    const { api } = bed();
    const skewed = await signInWithSaml("mal@globex.test", "skewed");
    expect(skewed.error).toBe("saml_clock_skew");
    expect(await signedInUser(skewed.b)).toBe(401);
    expect(await api.db.selectFrom("user").select("id").where("email", "=", "mal@globex.test").execute()).toEqual([]);
  });

  it("an admin turns the provider off: nobody signs in through it, it keeps its settings, and both switches are audit-logged", async () => {
    const { api, admin } = bed();
    const off = await admin.request("PUT", `/api/sso/providers/${provider.id}/enabled`, { enabled: false });
    expect(off.status, JSON.stringify(off.json)).toBe(200);
    const settings = SsoSettings.parse((await admin.request("GET", "/api/sso")).json);
    expect(settings.providers[0]).toMatchObject({
      id: provider.id,
      enabled: false,
      active: false,
      roleRules: [{ value: "throng-admins", role: "admin" }],
    });
    const refused = await ssoBrowser(api.url).send("POST", "/api/sso/sign-in", { email: "linus@globex.test" });
    expect(refused.status).toBe(409);
    expect(messageOf(await refused.json())).toContain(
      "Globex SAML, the identity provider for globex.test, is turned off",
    );
    expect((await admin.request("PUT", "/api/sso/requirement", { requireSso: true })).status).toBe(409);

    expect((await admin.request("PUT", `/api/sso/providers/${provider.id}/enabled`, { enabled: true })).status).toBe(
      200,
    );
    const audit = (await auditLog(admin)).map((e) => [e.action, e.target]);
    expect(audit).toEqual(
      expect.arrayContaining([
        ["sso.provider-disabled", "Globex SAML"],
        ["sso.provider-enabled", "Globex SAML"],
      ]),
    );
  });

  it("an IdP whose clock runs two minutes ahead still signs people in (five minutes of skew are allowed)", async () => {
    const ahead = await signInWithSaml("mal@globex.test", "ahead");
    expect(ahead.error, ahead.description ?? "").toBeNull();
    expect(Me.parse(await (await ahead.b.send("GET", "/api/me")).json()).role).toBe("viewer");
  });
});
