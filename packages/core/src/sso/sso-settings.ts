import { randomBytes } from "node:crypto";
import { ThrongError, parseOrThrow } from "@throng/protocol/errors";
import {
  type AddSsoDomain,
  EmailDomain,
  JoinRole,
  type PutSsoProvider,
  type PutSsoProviderEnabled,
  type PutSsoRequirement,
  RoleRule,
  type PutOidcProvider,
  type PutSamlProvider,
  type SsoDomainView,
  type SsoProviderView,
  type SsoSettings,
} from "@throng/protocol/sso";
import type { SsoDomainRow, SsoProviderRow, SsoProviderWrite, SsoRepo } from "@throng/db/repos/sso";
import type { Clock } from "../ports";
import type { Sealer } from "../metrics-export/sealed-secrets";
import type { AuditLog } from "../orgs/audit";
import { authorize, type Actor } from "../orgs/permissions";
import {
  oidcPluginConfig,
  samlPluginConfig,
  sealSecret,
  storedOidcSecret,
  storedSamlKey,
  type OidcEndpoints,
  type SamlIdpMetadata,
} from "./sso-config";
import { provesDomain, txtRecordName, txtRecordValue } from "./sso-rules";

/** Reads an issuer's discovery document; throws a ThrongError in plain words when it cannot. */
export type OidcDiscovery = (issuer: string) => Promise<OidcEndpoints>;
/** Fetches (by URL) and reads (XML) a SAML identity provider's metadata; throws a ThrongError in plain words. */
export interface SamlMetadataReader {
  fetch(url: string): Promise<string>;
  read(xml: string): SamlIdpMetadata;
}
/** DNS TXT records at a name (each a list of chunks); none is an empty list, not an error. */
export type TxtResolver = (name: string) => Promise<string[][]>;

export interface SsoConfig {
  /** Better Auth's base URL as browsers and identity providers reach it: the web origin + /api/auth. */
  authBaseUrl: string;
  ssoSessionHours: number;
  passwordSessionDays: number;
}

export interface SsoSettingsDeps {
  sso: SsoRepo;
  audit: AuditLog;
  sealer: Sealer;
  clock: Clock;
  config: SsoConfig;
  resolveTxt: TxtResolver;
  discoverOidc: OidcDiscovery;
  samlMetadata: SamlMetadataReader;
}

/** Where the identity provider sends people back, and what it must call Throng: shown beside each provider. */
export function serviceProviderDetails(config: SsoConfig, providerId: string, protocol: "oidc" | "saml") {
  const metadataUrl = `${config.authBaseUrl}/sso/saml2/sp/metadata?providerId=${providerId}`;
  return protocol === "oidc"
    ? {
        redirectUri: `${config.authBaseUrl}/sso/callback/${providerId}`,
        acsUrl: null,
        entityId: null,
        metadataUrl: null,
      }
    : {
        redirectUri: null,
        acsUrl: `${config.authBaseUrl}/sso/saml2/sp/acs/${providerId}`,
        entityId: metadataUrl,
        metadataUrl,
      };
}

function domainView(row: SsoDomainRow): SsoDomainView {
  return {
    domain: row.domain,
    verified: row.verifiedAt !== null,
    txtName: txtRecordName(row.domain),
    txtValue: txtRecordValue(row.token),
    verifiedAt: row.verifiedAt?.toISOString() ?? null,
    verifiedBy: row.verifiedBy,
  };
}

function providerView(config: SsoConfig, samlMetadata: SamlMetadataReader, row: SsoProviderRow): SsoProviderView {
  const protocol = row.oidcConfig ? "oidc" : "saml";
  const oidc = row.oidcConfig
    ? (JSON.parse(row.oidcConfig) as {
        clientId: string;
        clientSecret?: string;
        scopes?: string[];
        authorizationEndpoint?: string;
      })
    : null;
  const saml = row.samlConfig
    ? (JSON.parse(row.samlConfig) as { idpMetadata: { metadata: string }; spMetadata?: { privateKey?: string } })
    : null;
  const idp = saml ? samlMetadata.read(saml.idpMetadata.metadata) : null;
  return {
    id: row.providerId,
    name: row.name,
    protocol,
    domains: row.domains,
    enabled: row.enabled,
    active: row.enabled && row.domainVerified,
    issuer: row.issuer,
    oidc: oidc && {
      clientId: oidc.clientId,
      clientSecret: oidc.clientSecret ? "set" : "not set",
      scopes: oidc.scopes ?? [],
      authorizationEndpoint: oidc.authorizationEndpoint ?? null,
    },
    saml: idp && {
      entityId: idp.entityId,
      ssoUrl: idp.ssoUrl,
      metadataUrl: row.metadataUrl,
      certificateSha256: idp.certificates[0]?.sha256 ?? null,
      certificateExpires: idp.certificates[0]?.notAfter ?? null,
      spPrivateKey: saml?.spMetadata?.privateKey ? "set" : "not set",
    },
    roleClaim: row.roleClaim,
    roleRules: row.roleRules.map((rule) => RoleRule.parse(rule)),
    defaultRole: JoinRole.parse(row.defaultRole),
    serviceProvider: serviceProviderDetails(config, row.providerId, protocol),
    createdBy: row.createdBy,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The org's provider `providerId`; not_found when it has none. */
async function provider(sso: SsoRepo, actor: Actor, providerId: string): Promise<SsoProviderRow> {
  const row = await sso.getProvider(actor.orgId, providerId);
  if (!row) throw new ThrongError("not_found", `No identity provider ${providerId} in this organisation`);
  return row;
}

/** Each domain must be claimed by the org and signed in through no other of its providers. */
async function checkDomains(sso: SsoRepo, actor: Actor, domains: string[], providerId: string | null): Promise<void> {
  const claimed = new Set((await sso.listDomains(actor.orgId)).map((d) => d.domain));
  const others = (await sso.listProviders(actor.orgId)).filter((p) => p.providerId !== providerId);
  const fields = domains.flatMap((domain, i) => {
    if (!claimed.has(domain))
      return [
        { path: `domains.${i}`, message: `add ${domain} under Domains first (and verify it), then name it here` },
      ];
    const taken = others.find((p) => p.domains.includes(domain));
    return taken
      ? [{ path: `domains.${i}`, message: `${domain} already signs in through ${taken.name}: remove it there first` }]
      : [];
  });
  if (fields.length)
    throw new ThrongError(
      "validation_failed",
      `Invalid identity provider: ${fields.map((f) => `${f.path}: ${f.message}`).join("; ")}`,
      fields,
    );
}

/** What an OIDC provider's settings store: the issuer's endpoints as discovered, its client secret sealed. */
async function oidcWrite(
  deps: SsoSettingsDeps,
  body: PutOidcProvider,
  current: SsoProviderRow | null,
): Promise<SsoProviderWrite> {
  const kept = current?.oidcConfig ? storedOidcSecret(current.oidcConfig) : null;
  if (!body.clientSecret && !kept)
    throw new ThrongError("validation_failed", "Invalid identity provider: clientSecret: paste the client secret", [
      { path: "clientSecret", message: "paste the client secret" },
    ]);
  const endpoints = await deps.discoverOidc(body.issuer);
  const sealedClientSecret = body.clientSecret ? sealSecret(deps.sealer, body.clientSecret) : kept!;
  return {
    ...mapping(body),
    issuer: endpoints.issuer,
    metadataUrl: null,
    samlConfig: null,
    oidcConfig: oidcPluginConfig({
      endpoints,
      clientId: body.clientId,
      sealedClientSecret,
      scopes: body.scopes,
      roleClaim: body.roleClaim,
    }),
  };
}

/** What a SAML provider's settings store: the IdP's metadata (fetched or pasted) and the SP's key sealed. */
async function samlWrite(
  deps: SsoSettingsDeps,
  body: PutSamlProvider,
  providerId: string,
  current: SsoProviderRow | null,
): Promise<SsoProviderWrite> {
  const xml = body.metadataXml?.trim() || (body.metadataUrl ? await deps.samlMetadata.fetch(body.metadataUrl) : null);
  if (!xml)
    throw new ThrongError(
      "validation_failed",
      "Invalid identity provider: metadataUrl: give the IdP's metadata URL or paste its metadata XML",
      [{ path: "metadataUrl", message: "give the IdP's metadata URL or paste its metadata XML" }],
    );
  const metadata = deps.samlMetadata.read(xml);
  if (metadata.certificates.length === 0) {
    throw new ThrongError(
      "validation_failed",
      "Invalid identity provider: metadataXml: the metadata names no signing certificate, and Throng accepts only signed assertions",
      [
        {
          path: "metadataXml",
          message: "the metadata names no signing certificate, and Throng accepts only signed assertions",
        },
      ],
    );
  }
  if (body.spPrivateKey && !body.spCertificate)
    throw new ThrongError(
      "validation_failed",
      "Invalid identity provider: spCertificate: give the certificate of the private key too",
      [{ path: "spCertificate", message: "give the certificate of the private key too" }],
    );
  const kept = current?.samlConfig ? storedSamlKey(current.samlConfig) : null;
  const sealedSpPrivateKey = body.spPrivateKey ? sealSecret(deps.sealer, body.spPrivateKey) : (kept?.key ?? null);
  const spEntityId = serviceProviderDetails(deps.config, providerId, "saml").entityId!;
  return {
    ...mapping(body),
    issuer: metadata.entityId,
    metadataUrl: body.metadataXml?.trim() ? null : (body.metadataUrl ?? null),
    oidcConfig: null,
    samlConfig: samlPluginConfig({
      spEntityId,
      metadataXml: xml,
      metadata,
      sealedSpPrivateKey,
      spCertificate: body.spCertificate ?? kept?.certificate ?? null,
      roleClaim: body.roleClaim,
    }),
  };
}

function mapping(body: PutSsoProvider) {
  return {
    name: body.name,
    domains: [...new Set(body.domains)],
    roleClaim: body.roleClaim,
    roleRules: body.roleRules,
    defaultRole: body.defaultRole,
  };
}

/** A provider's settings as stored, checked: the caller may, the protocol is the one it had, its domains are free. */
async function providerWrite(
  deps: SsoSettingsDeps,
  actor: Actor,
  body: PutSsoProvider,
  providerId: string,
  current: SsoProviderRow | null,
): Promise<SsoProviderWrite> {
  authorize(actor, "settings.manage");
  if (current && (current.oidcConfig ? "oidc" : "saml") !== body.protocol)
    throw new ThrongError(
      "conflict",
      `${current.name} is ${current.oidcConfig ? "an OIDC" : "a SAML"} provider: add a new provider for ${body.protocol.toUpperCase()} instead`,
    );
  await checkDomains(deps.sso, actor, body.domains, current ? providerId : null);
  return body.protocol === "oidc" ? oidcWrite(deps, body, current) : samlWrite(deps, body, providerId, current);
}

/** The org's email domains: claimed, proven by a DNS TXT record, removed once no provider signs them in. */
function createSsoDomainSettings(deps: SsoSettingsDeps) {
  const { sso, audit, clock } = deps;
  return {
    async addDomain(actor: Actor, input: AddSsoDomain): Promise<SsoDomainView> {
      authorize(actor, "settings.manage");
      const { domain } = input;
      if (!(await sso.insertDomain(actor.orgId, domain, randomBytes(18).toString("base64url"))))
        throw new ThrongError("conflict", `${domain} is already one of this organisation's domains`);
      await audit.record(actor.orgId, actor.label, "sso.domain-added", domain);
      return domainView((await sso.getDomain(actor.orgId, domain))!);
    },

    /** Looks the TXT record up now; a verified domain stays verified (removing the record later changes nothing). */
    async verifyDomain(actor: Actor, rawDomain: string): Promise<SsoDomainView> {
      authorize(actor, "settings.manage");
      const domain = parseOrThrow(EmailDomain, rawDomain, "domain");
      const claim = await sso.getDomain(actor.orgId, domain);
      if (!claim)
        throw new ThrongError("not_found", `${domain} is not one of this organisation's domains: add it first`);
      if (claim.verifiedAt) return domainView(claim);
      const name = txtRecordName(domain);
      const records = await deps.resolveTxt(name);
      if (!provesDomain(records, claim.token)) {
        throw new ThrongError(
          "conflict",
          `No TXT record "${txtRecordValue(claim.token)}" at ${name} yet: publish it at your DNS host, wait for it to appear (often minutes, up to the record's TTL), then verify again`,
        );
      }
      if (!(await sso.markDomainVerified(actor.orgId, domain, actor.label, new Date(clock.now())))) {
        throw new ThrongError(
          "conflict",
          `${domain} is verified by another organisation on this Throng; one domain signs in to one organisation`,
        );
      }
      await audit.record(actor.orgId, actor.label, "sso.domain-verified", domain, { record: name });
      return domainView((await sso.getDomain(actor.orgId, domain))!);
    },

    async removeDomain(actor: Actor, rawDomain: string): Promise<void> {
      authorize(actor, "settings.manage");
      const domain = parseOrThrow(EmailDomain, rawDomain, "domain");
      const usedBy = (await sso.listProviders(actor.orgId)).find((p) => p.domains.includes(domain));
      if (usedBy)
        throw new ThrongError("conflict", `${usedBy.name} signs ${domain} in: take the domain off that provider first`);
      if (!(await sso.deleteDomain(actor.orgId, domain)))
        throw new ThrongError("not_found", `${domain} is not one of this organisation's domains`);
      await audit.record(actor.orgId, actor.label, "sso.domain-removed", domain);
    },
  };
}

/** The org's identity providers: added, changed, removed, turned off and on; their secrets sealed. */
function createSsoProviderSettings(deps: SsoSettingsDeps) {
  const { sso, audit, config } = deps;
  const view = (row: SsoProviderRow) => providerView(config, deps.samlMetadata, row);
  return {
    async addProvider(actor: Actor, input: PutSsoProvider): Promise<SsoProviderView> {
      const providerId = `sso-${randomBytes(5).toString("hex")}`;
      const fields = await providerWrite(deps, actor, input, providerId, null);
      await sso.insertProvider(actor.orgId, providerId, fields, actor.label, actor.userId);
      await audit.record(actor.orgId, actor.label, "sso.provider-added", fields.name, {
        provider: providerId,
        protocol: fields.oidcConfig ? "oidc" : "saml",
        issuer: fields.issuer,
        domains: fields.domains,
      });
      return view((await sso.getProvider(actor.orgId, providerId))!);
    },

    async changeProvider(actor: Actor, providerId: string, input: PutSsoProvider): Promise<SsoProviderView> {
      authorize(actor, "settings.manage");
      const current = await provider(sso, actor, providerId);
      const fields = await providerWrite(deps, actor, input, providerId, current);
      await sso.updateProvider(actor.orgId, providerId, fields);
      const secretReplaced =
        (input as { clientSecret?: unknown; spPrivateKey?: unknown }).clientSecret !== undefined ||
        (input as { spPrivateKey?: unknown }).spPrivateKey !== undefined;
      await audit.record(actor.orgId, actor.label, "sso.provider-changed", fields.name, {
        provider: providerId,
        issuer: fields.issuer,
        domains: fields.domains,
        secretReplaced,
      });
      return view((await sso.getProvider(actor.orgId, providerId))!);
    },

    async removeProvider(actor: Actor, providerId: string): Promise<void> {
      authorize(actor, "settings.manage");
      const current = await provider(sso, actor, providerId);
      await sso.deleteProvider(actor.orgId, providerId);
      await audit.record(actor.orgId, actor.label, "sso.provider-removed", current.name, { provider: providerId });
    },

    /**
     * Turns a provider off (it keeps its settings, signs nobody in; sessions opened through it run to their end) or
     * on again. The last provider that signs people in stays on while SSO is required: members would have no way in.
     */
    async setProviderEnabled(
      actor: Actor,
      providerId: string,
      input: PutSsoProviderEnabled,
    ): Promise<{ enabled: boolean }> {
      authorize(actor, "settings.manage");
      const { enabled } = input;
      const current = await provider(sso, actor, providerId);
      if (!enabled && (await sso.requiresSso(actor.orgId))) {
        const othersActive = (await sso.listProviders(actor.orgId)).some(
          (p) => p.providerId !== providerId && p.enabled && p.domainVerified,
        );
        if (!othersActive)
          throw new ThrongError(
            "conflict",
            `${current.name} is the only provider that signs members in while SSO is required: turn Require SSO off first, or add another provider`,
          );
      }
      if (current.enabled === enabled) return { enabled };
      await sso.setProviderEnabled(actor.orgId, providerId, enabled);
      await audit.record(
        actor.orgId,
        actor.label,
        enabled ? "sso.provider-enabled" : "sso.provider-disabled",
        current.name,
        { provider: providerId },
      );
      return { enabled };
    },
  };
}

/**
 * The Single sign-on settings: email domains proven by DNS, identity providers (their secrets sealed, never
 * answered back) and "Require SSO". Admins and owners change them; every change is audit-logged.
 */
export function createSsoSettings(deps: SsoSettingsDeps) {
  const { sso, audit, config } = deps;
  const view = (row: SsoProviderRow) => providerView(config, deps.samlMetadata, row);
  return {
    async settings(actor: Actor): Promise<SsoSettings> {
      authorize(actor, "settings.read");
      return {
        requireSso: await sso.requiresSso(actor.orgId),
        domains: (await sso.listDomains(actor.orgId)).map(domainView),
        providers: (await sso.listProviders(actor.orgId)).map(view),
        ssoSessionHours: config.ssoSessionHours,
        passwordSessionDays: config.passwordSessionDays,
      };
    },

    ...createSsoDomainSettings(deps),
    ...createSsoProviderSettings(deps),

    /** Requiring SSO needs a provider that can sign people in, so nobody but the owners is locked out. */
    async setRequirement(actor: Actor, input: PutSsoRequirement): Promise<{ requireSso: boolean }> {
      authorize(actor, "settings.manage");
      const { requireSso } = input;
      if (requireSso && !(await sso.listProviders(actor.orgId)).some((p) => p.enabled && p.domainVerified)) {
        throw new ThrongError(
          "conflict",
          "Add (or turn on) an identity provider whose domains are all verified before requiring SSO: members would have no way in",
        );
      }
      await sso.setRequireSso(actor.orgId, requireSso, actor.label);
      await audit.record(actor.orgId, actor.label, requireSso ? "sso.required" : "sso.not-required", null);
      return { requireSso };
    },
  };
}
export type SsoSettingsService = ReturnType<typeof createSsoSettings>;
