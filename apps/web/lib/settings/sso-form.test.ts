import { describe, expect, it } from "vitest";
import type { SsoDomainView, SsoProviderView } from "@throng/protocol/sso";
import { EMPTY_DRAFT, draftOf, parseRoleRules, providerBody, providerStatus, roleRulesText } from "./sso-form";

const provider: SsoProviderView = {
  id: "sso-1",
  name: "Okta",
  protocol: "oidc",
  domains: ["acme.test", "acme.io"],
  enabled: true,
  active: true,
  issuer: "https://acme.okta.com",
  oidc: { clientId: "abc", clientSecret: "set", scopes: ["openid", "email"], authorizationEndpoint: null },
  saml: null,
  roleClaim: "groups",
  roleRules: [{ value: "throng-admins", role: "admin" }],
  defaultRole: "member",
  serviceProvider: { redirectUri: "x", acsUrl: null, entityId: null, metadataUrl: null },
  createdBy: null,
  updatedAt: "2026-11-27T09:00:00Z",
};
const domain = (name: string, verified: boolean): SsoDomainView => ({
  domain: name,
  verified,
  txtName: "",
  txtValue: "",
  verifiedAt: null,
  verifiedBy: null,
});

describe("the Single sign-on provider form", () => {
  it("reads role rules one a line, in either arrow, and names the line that is not a rule", () => {
    expect(parseRoleRules("throng-admins = admin\n\n  qa -> viewer \nEng → Member")).toEqual({
      rules: [
        { value: "throng-admins", role: "admin" },
        { value: "qa", role: "viewer" },
        { value: "Eng", role: "member" },
      ],
      error: null,
    });
    expect(parseRoleRules("ok = admin\nboss = owner").error).toMatch(/^Line 2 \("boss = owner"\): write group = role/);
    expect(roleRulesText(provider.roleRules)).toBe("throng-admins = admin");
  });

  it("sends an OIDC body without a secret when the field is left empty (the stored one is kept)", () => {
    const body = providerBody({ ...draftOf(provider) }, provider.roleRules);
    expect(body).toEqual({
      protocol: "oidc",
      name: "Okta",
      domains: ["acme.test", "acme.io"],
      roleClaim: "groups",
      roleRules: provider.roleRules,
      defaultRole: "member",
      issuer: "https://acme.okta.com",
      clientId: "abc",
      scopes: ["openid", "email"],
    });
  });

  it("sends SAML metadata as pasted XML when there is some, else by URL", () => {
    const saml = {
      ...EMPTY_DRAFT,
      protocol: "saml" as const,
      name: "Entra",
      domains: "Acme.test",
      metadataUrl: "https://idp/metadata",
      roleClaim: "",
    };
    expect(providerBody(saml, [])).toMatchObject({
      protocol: "saml",
      domains: ["acme.test"],
      metadataUrl: "https://idp/metadata",
      roleClaim: null,
    });
    expect(providerBody({ ...saml, metadataXml: " <EntityDescriptor/> " }, [])).toMatchObject({
      metadataXml: "<EntityDescriptor/>",
    });
    expect(providerBody({ ...saml, metadataXml: " <EntityDescriptor/> " }, [])).not.toHaveProperty("metadataUrl");
  });

  it("says why a provider signs nobody in: turned off, or a domain not verified yet", () => {
    expect(providerStatus(provider, [domain("acme.test", true), domain("acme.io", true)])).toEqual({
      active: true,
      text: "Signs in acme.test, acme.io",
    });
    expect(providerStatus(provider, [domain("acme.test", true), domain("acme.io", false)]).text).toBe(
      "Waiting for acme.io to be verified (Domains above)",
    );
    expect(providerStatus({ ...provider, enabled: false }, []).text).toMatch(/^Turned off/);
  });
});
