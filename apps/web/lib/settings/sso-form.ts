// The Single sign-on settings' provider form as plain data: its fields, the body it sends, a provider's status line.
// Pure; no React.
import type { JoinRole, PutSsoProvider, RoleRule, SsoDomainView, SsoProviderView } from "@throng/protocol/sso";

export interface ProviderDraft {
  protocol: "oidc" | "saml";
  name: string;
  /** Comma- or space-separated email domains. */
  domains: string;
  issuer: string;
  clientId: string;
  /** Empty on a change: the stored secret is kept. */
  clientSecret: string;
  scopes: string;
  metadataUrl: string;
  metadataXml: string;
  roleClaim: string;
  /** One rule a line: `value = role`. */
  roleRules: string;
  defaultRole: JoinRole;
}

export const EMPTY_DRAFT: ProviderDraft = {
  protocol: "oidc",
  name: "",
  domains: "",
  issuer: "",
  clientId: "",
  clientSecret: "",
  scopes: "openid email profile groups",
  metadataUrl: "",
  metadataXml: "",
  roleClaim: "groups",
  roleRules: "",
  defaultRole: "member",
};

const words = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((w) => w.trim())
    .filter(Boolean);

/** The form's text for a provider's rules, one `value = role` a line. */
export function roleRulesText(rules: readonly RoleRule[]): string {
  return rules.map((rule) => `${rule.value} = ${rule.role}`).join("\n");
}

/** Rules from the form's lines; a line that is not `value = role` (role admin, member or viewer) is named. */
export function parseRoleRules(text: string): { rules: RoleRule[]; error: string | null } {
  const rules: RoleRule[] = [];
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  for (const [index, line] of lines.entries()) {
    const match = /^(.+?)\s*(?:=|→|->)\s*(admin|member|viewer)$/i.exec(line);
    if (!match)
      return {
        rules,
        error: `Line ${index + 1} ("${line}"): write group = role, e.g. throng-admins = admin (roles: admin, member, viewer)`,
      };
    rules.push({ value: match[1]!.trim(), role: match[2]!.toLowerCase() as JoinRole });
  }
  return { rules, error: null };
}

/** The body POST/PUT /api/sso/providers takes; the server's schema checks it and names any field that is wrong. */
export function providerBody(draft: ProviderDraft, rules: RoleRule[]): PutSsoProvider {
  const common = {
    name: draft.name.trim(),
    domains: words(draft.domains.toLowerCase()),
    roleClaim: draft.roleClaim.trim() || null,
    roleRules: rules,
    defaultRole: draft.defaultRole,
  };
  if (draft.protocol === "oidc") {
    return {
      protocol: "oidc",
      ...common,
      issuer: draft.issuer.trim(),
      clientId: draft.clientId.trim(),
      ...(draft.clientSecret ? { clientSecret: draft.clientSecret } : {}),
      scopes: words(draft.scopes),
    };
  }
  return {
    protocol: "saml",
    ...common,
    ...(draft.metadataXml.trim()
      ? { metadataXml: draft.metadataXml.trim() }
      : { metadataUrl: draft.metadataUrl.trim() }),
  };
}

/** A stored provider back in the form, to change it (its secret stays out: left empty, it is kept). */
export function draftOf(provider: SsoProviderView): ProviderDraft {
  return {
    ...EMPTY_DRAFT,
    protocol: provider.protocol,
    name: provider.name,
    domains: provider.domains.join(", "),
    issuer: provider.oidc ? provider.issuer : "",
    clientId: provider.oidc?.clientId ?? "",
    scopes: provider.oidc?.scopes.join(" ") ?? EMPTY_DRAFT.scopes,
    metadataUrl: provider.saml?.metadataUrl ?? "",
    roleClaim: provider.roleClaim ?? "",
    roleRules: roleRulesText(provider.roleRules),
    defaultRole: provider.defaultRole,
  };
}

/** Whether a provider signs people in now, and if not, why and what to do. */
export function providerStatus(
  provider: SsoProviderView,
  domains: readonly SsoDomainView[],
): { active: boolean; text: string } {
  if (!provider.enabled) return { active: false, text: "Turned off: signs nobody in until turned on" };
  const unverified = provider.domains.filter((d) => !domains.some((claim) => claim.domain === d && claim.verified));
  if (unverified.length)
    return { active: false, text: `Waiting for ${unverified.join(", ")} to be verified (Domains above)` };
  return { active: true, text: `Signs in ${provider.domains.join(", ")}` };
}
