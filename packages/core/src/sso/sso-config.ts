import type { Sealer } from "../metrics-export/sealed-secrets";

/** Marks a secret inside the plugin's JSON as sealed; the database never holds it in clear. */
const SEALED = "throng-sealed:";

/** The claim Throng asks the SSO plugin to copy into the profile it hands over, whatever the admin named it. */
export const ROLE_CLAIM_FIELD = "throngRoleClaim";

/** OIDC endpoints as the issuer's discovery document gives them. */
export interface OidcEndpoints {
  issuer: string;
  discoveryEndpoint: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksEndpoint: string;
  userInfoEndpoint: string | null;
  tokenEndpointAuthentication: "client_secret_basic" | "client_secret_post";
}

/** What Throng reads out of a SAML identity provider's metadata. */
export interface SamlIdpMetadata {
  entityId: string;
  ssoUrl: string | null;
  /** The signing certificates (PEM), with their SHA-256 fingerprints and expiry. */
  certificates: { pem: string; sha256: string; notAfter: string }[];
}

/** The plugin's oidcConfig (Better Auth's SSO plugin stores and reads this JSON), with the client secret sealed. */
export function oidcPluginConfig(input: {
  endpoints: OidcEndpoints;
  clientId: string;
  sealedClientSecret: string;
  scopes: string[];
  roleClaim: string | null;
}): string {
  const { endpoints } = input;
  return JSON.stringify({
    issuer: endpoints.issuer,
    clientId: input.clientId,
    clientSecret: input.sealedClientSecret,
    discoveryEndpoint: endpoints.discoveryEndpoint,
    authorizationEndpoint: endpoints.authorizationEndpoint,
    tokenEndpoint: endpoints.tokenEndpoint,
    jwksEndpoint: endpoints.jwksEndpoint,
    userInfoEndpoint: endpoints.userInfoEndpoint ?? undefined,
    tokenEndpointAuthentication: endpoints.tokenEndpointAuthentication,
    pkce: true,
    scopes: input.scopes,
    overrideUserInfo: false,
    mapping: input.roleClaim ? { extraFields: { [ROLE_CLAIM_FIELD]: input.roleClaim } } : undefined,
  });
}

/**
 * The plugin's samlConfig: the IdP's metadata as given, assertions must be signed, the service provider's entity ID
 * (also the audience), and its private key, sealed, when the IdP wants signed requests or encrypts assertions.
 */
export function samlPluginConfig(input: {
  spEntityId: string;
  metadataXml: string;
  metadata: SamlIdpMetadata;
  sealedSpPrivateKey: string | null;
  spCertificate: string | null;
  roleClaim: string | null;
}): string {
  return JSON.stringify({
    issuer: input.spEntityId,
    audience: input.spEntityId,
    entryPoint: input.metadata.ssoUrl ?? undefined,
    cert: input.metadata.certificates[0]?.pem,
    idpMetadata: { metadata: input.metadataXml },
    spMetadata: input.sealedSpPrivateKey
      ? {
          entityID: input.spEntityId,
          privateKey: input.sealedSpPrivateKey,
          signingCert: input.spCertificate ?? undefined,
        }
      : { entityID: input.spEntityId },
    wantAssertionsSigned: true,
    authnRequestsSigned: Boolean(input.sealedSpPrivateKey),
    mapping: input.roleClaim ? { extraFields: { [ROLE_CLAIM_FIELD]: input.roleClaim } } : undefined,
  });
}

export function sealSecret(sealer: Sealer, secret: string): string {
  return `${SEALED}${sealer.seal(secret)}`;
}

function openSecret(sealer: Sealer, value: unknown): unknown {
  return typeof value === "string" && value.startsWith(SEALED) ? sealer.open(value.slice(SEALED.length)) : value;
}

/** The stored client secret of an oidcConfig JSON (still sealed), to keep it when a change leaves it out. */
export function storedOidcSecret(config: string | null): string | null {
  const secret = config ? (JSON.parse(config) as { clientSecret?: unknown }).clientSecret : null;
  return typeof secret === "string" ? secret : null;
}

/** The stored SP private key of a samlConfig JSON (still sealed). */
export function storedSamlKey(config: string | null): { key: string; certificate: string | null } | null {
  const sp = config
    ? (JSON.parse(config) as { spMetadata?: { privateKey?: unknown; signingCert?: unknown } }).spMetadata
    : undefined;
  return typeof sp?.privateKey === "string"
    ? { key: sp.privateKey, certificate: typeof sp.signingCert === "string" ? sp.signingCert : null }
    : null;
}

/** The plugin's config JSON with its sealed secrets opened: for the plugin at sign-in, never for an answer. */
export function openPluginConfig(sealer: Sealer, config: unknown): unknown {
  if (typeof config !== "string" || !config.includes(SEALED)) return config;
  const parsed = JSON.parse(config) as Record<string, unknown> & { spMetadata?: Record<string, unknown> };
  const opened: Record<string, unknown> = {
    ...parsed,
    clientSecret: openSecret(sealer, parsed.clientSecret),
    privateKey: openSecret(sealer, parsed.privateKey),
  };
  if (parsed.spMetadata)
    opened.spMetadata = { ...parsed.spMetadata, privateKey: openSecret(sealer, parsed.spMetadata.privateKey) };
  return JSON.stringify(opened);
}
