import { z } from "zod";
import { Role } from "./orgs";

/**
 * An email domain: lower-case labels of letters, digits and hyphens, at least one dot. At most 232 characters: its
 * proof's TXT name (`_throng-verification.` + the domain) must fit DNS's 253 (longer, the lookup fails as a bad name).
 */
export const EmailDomain = z
  .string()
  .trim()
  .toLowerCase()
  .max(232, "a domain Throng can verify is at most 232 characters")
  .regex(
    /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/,
    "use a domain like example.com (no @, no https://)",
  );
export type EmailDomain = z.infer<typeof EmailDomain>;

/** The roles a joining member can be given by a rule (an owner is always made by hand). */
export const JoinRole = Role.exclude(["owner"]);
export type JoinRole = z.infer<typeof JoinRole>;

/** One role rule: a member whose role claim holds `value` (exactly, or among its values) joins as `role`. */
export const RoleRule = z.object({
  value: z.string().trim().min(1, "give the group or role value the identity provider sends").max(256),
  role: JoinRole,
});
export type RoleRule = z.infer<typeof RoleRule>;

const roleMapping = {
  /** The OIDC claim or SAML attribute carrying the person's groups or roles (e.g. groups); none: everyone gets defaultRole. */
  roleClaim: z.string().trim().min(1).max(256).nullable().default(null),
  /** Rules tried in order; the first that matches gives the role. */
  roleRules: z.array(RoleRule).max(50).default([]),
  defaultRole: JoinRole.default("member"),
};

const providerCommon = {
  name: z.string().trim().min(1, "name the provider, e.g. Okta").max(100),
  /** The email domains whose people sign in through this provider; each must be one of the organisation's domains. */
  domains: z.array(EmailDomain).min(1, "list at least one email domain, e.g. example.com").max(20),
  ...roleMapping,
};

/** PUT /api/sso/providers(/:id) body for an OpenID Connect provider; its endpoints come from the issuer's discovery document. */
export const PutOidcProvider = z.object({
  protocol: z.literal("oidc"),
  ...providerCommon,
  issuer: z
    .string()
    .trim()
    .url("the issuer is a URL, e.g. https://example.okta.com (Throng reads /.well-known/openid-configuration under it)")
    .max(2048),
  clientId: z.string().trim().min(1, "paste the client ID the identity provider gave Throng's application").max(512),
  /** Left out on a change: the stored secret is kept. Never answered back. */
  clientSecret: z.string().min(1, "paste the client secret").max(4096).optional(),
  scopes: z
    .array(
      z
        .string()
        .trim()
        .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, "a scope is one word, e.g. groups"),
    )
    .max(20)
    .default(["openid", "email", "profile"]),
});
export type PutOidcProvider = z.infer<typeof PutOidcProvider>;

/** PUT body for a SAML 2.0 identity provider: its metadata by URL or as XML; assertions must be signed. */
export const PutSamlProvider = z.object({
  protocol: z.literal("saml"),
  ...providerCommon,
  metadataUrl: z
    .string()
    .trim()
    .url("the metadata URL is an https:// address the identity provider shows")
    .max(2048)
    .optional(),
  metadataXml: z.string().max(100_000, "IdP metadata is at most 100 KB").optional(),
  /**
   * A private key (PEM) and its certificate for Throng's side, when the identity provider wants signed requests or
   * encrypts assertions. Left out on a change: the stored key is kept. The key is never answered back.
   */
  spPrivateKey: z.string().max(20_000).optional(),
  spCertificate: z.string().max(20_000).optional(),
});
export type PutSamlProvider = z.infer<typeof PutSamlProvider>;

/** POST /api/sso/providers and PUT /api/sso/providers/:id body. */
export const PutSsoProvider = z.discriminatedUnion("protocol", [PutOidcProvider, PutSamlProvider]);
export type PutSsoProvider = z.infer<typeof PutSsoProvider>;

/** Path parameter naming a provider. */
export const SsoProviderParams = z.object({
  id: z.string().regex(/^sso-[a-z0-9-]{1,60}$/, "a provider id looks like sso-1a2b3c4d"),
});
export type SsoProviderParams = z.infer<typeof SsoProviderParams>;

/** Path parameter naming a domain. */
export const SsoDomainParams = z.object({ domain: EmailDomain });
export type SsoDomainParams = z.infer<typeof SsoDomainParams>;

/** What the identity provider needs to know about Throng (its application's settings there). */
export const ServiceProviderDetails = z.object({
  /** OIDC: the redirect (callback) URI to register at the provider. */
  redirectUri: z.string().nullable(),
  /** SAML: the Assertion Consumer Service URL, the SP entity ID (audience) and Throng's metadata. */
  acsUrl: z.string().nullable(),
  entityId: z.string().nullable(),
  metadataUrl: z.string().nullable(),
});
export type ServiceProviderDetails = z.infer<typeof ServiceProviderDetails>;

/** GET /api/sso items: a provider as the settings page shows it (never a secret). */
export const SsoProviderView = z.object({
  id: z.string(),
  name: z.string(),
  protocol: z.enum(["oidc", "saml"]),
  domains: z.array(z.string()),
  /** Turned on (true) or off by an admin; off, it keeps its settings and signs nobody in. */
  enabled: z.boolean(),
  /** Signs people in: turned on, and every domain verified. */
  active: z.boolean(),
  issuer: z.string(),
  oidc: z
    .object({
      clientId: z.string(),
      clientSecret: z.enum(["set", "not set"]),
      scopes: z.array(z.string()),
      authorizationEndpoint: z.string().nullable(),
    })
    .nullable(),
  saml: z
    .object({
      entityId: z.string(),
      ssoUrl: z.string().nullable(),
      metadataUrl: z.string().nullable(),
      certificateSha256: z.string().nullable(),
      certificateExpires: z.string().nullable(),
      spPrivateKey: z.enum(["set", "not set"]),
    })
    .nullable(),
  roleClaim: z.string().nullable(),
  roleRules: z.array(RoleRule),
  defaultRole: JoinRole,
  serviceProvider: ServiceProviderDetails,
  createdBy: z.string().nullable(),
  updatedAt: z.string(),
});
export type SsoProviderView = z.infer<typeof SsoProviderView>;

/** A claimed email domain and the DNS TXT record that proves it. */
export const SsoDomainView = z.object({
  domain: z.string(),
  verified: z.boolean(),
  /** Publish this TXT record, then ask Throng to verify. */
  txtName: z.string(),
  txtValue: z.string(),
  verifiedAt: z.string().nullable(),
  verifiedBy: z.string().nullable(),
});
export type SsoDomainView = z.infer<typeof SsoDomainView>;

/** GET /api/sso: everything on the Single sign-on settings page. */
export const SsoSettings = z.object({
  requireSso: z.boolean(),
  domains: z.array(SsoDomainView),
  providers: z.array(SsoProviderView),
  /** How long a session opened through SSO lasts, whatever happens at the provider. */
  ssoSessionHours: z.number(),
  /** A password session: days from the last use, renewed at most once a day. */
  passwordSessionDays: z.number(),
});
export type SsoSettings = z.infer<typeof SsoSettings>;

/** PUT /api/sso/providers/:id/enabled body and answer: turn a provider on or off without removing it. */
export const PutSsoProviderEnabled = z.object({ enabled: z.boolean() });
export type PutSsoProviderEnabled = z.infer<typeof PutSsoProviderEnabled>;

/** POST /api/sso/domains body. */
export const AddSsoDomain = z.object({ domain: EmailDomain });
export type AddSsoDomain = z.infer<typeof AddSsoDomain>;

/** PUT /api/sso/requirement body. */
export const PutSsoRequirement = z.object({ requireSso: z.boolean() });
export type PutSsoRequirement = z.infer<typeof PutSsoRequirement>;

/** POST /api/sso/sign-in body: the sign-in page's "Sign in with SSO" by work email. */
export const SsoSignIn = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(320)
    .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "enter your work email, like you@example.com"),
});
export type SsoSignIn = z.infer<typeof SsoSignIn>;

/** POST /api/sso/sign-in answer: where the browser goes next (the identity provider's sign-in page). */
export const SsoSignInStarted = z.object({ url: z.string(), provider: z.string() });
export type SsoSignInStarted = z.infer<typeof SsoSignInStarted>;
