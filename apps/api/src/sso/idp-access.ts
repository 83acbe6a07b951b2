import { X509Certificate } from "node:crypto";
import { promises as dns } from "node:dns";
import { isIP } from "node:net";
import { discoverOIDCConfig, DiscoveryError } from "@better-auth/sso";
import { isPublicRoutableHost } from "@better-auth/core/utils/host";
import * as samlify from "samlify";
import { ThrongError } from "@throng/protocol/errors";
import type { OidcEndpoints, SamlIdpMetadata } from "@throng/core/sso/sso-config";
import type { OidcDiscovery, SamlMetadataReader, TxtResolver } from "@throng/core/sso/sso-settings";

const FETCH_TIMEOUT_MS = 10_000;
const MAX_METADATA_BYTES = 100 * 1024;

/** An origin pattern as SSO_PRIVATE_IDP_ORIGINS writes it (`*` for any run of characters) as a test on URLs. */
function originMatcher(patterns: readonly string[]): (url: string) => boolean {
  const regexes = patterns.map(
    (p) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`),
  );
  return (url) => {
    try {
      const origin = new URL(url).origin;
      return regexes.some((re) => re.test(origin));
    } catch {
      return false;
    }
  };
}

/**
 * Where Throng may fetch from for an identity provider: an operator-listed private origin, or a host whose every
 * address is public (so an issuer URL cannot make the API call into its own network).
 */
export function idpHostPolicy(privateOrigins: readonly string[]) {
  const listed = originMatcher(privateOrigins);
  return {
    listed,
    /** The synchronous check the SSO plugin asks for each discovered endpoint. */
    allowedLiterally: (url: string) => listed(url) || isPublicRoutableHost(new URL(url).hostname),
    async assertReachable(url: string, what: string): Promise<void> {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new ThrongError("validation_failed", `${what} is not a URL: ${url}`);
      }
      if (listed(url)) return;
      const host = parsed.hostname.replace(/^\[|\]$/g, "");
      const addresses = isIP(host)
        ? [host]
        : await dns.lookup(host, { all: true }).then(
            (all) => all.map((a) => a.address),
            () => [],
          );
      if (addresses.length === 0)
        throw new ThrongError("validation_failed", `${what}: ${host} does not resolve; check the address`);
      const inside = addresses.find((address) => !isPublicRoutableHost(address));
      if (inside) {
        throw new ThrongError(
          "validation_failed",
          `${what}: ${host} is on a private network (${inside}); a Throng operator must list ${parsed.origin} in SSO_PRIVATE_IDP_ORIGINS for Throng to use it`,
        );
      }
    },
  };
}
export type IdpHostPolicy = ReturnType<typeof idpHostPolicy>;

/** What a failed discovery means, in words an admin can act on. */
function discoveryProblem(issuer: string, error: DiscoveryError): ThrongError {
  const where = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
  switch (error.code) {
    case "discovery_timeout":
    case "discovery_unexpected_error":
      return new ThrongError(
        "unavailable",
        `Could not reach the identity provider at ${where} (${error.message}): check the issuer URL, and that the provider is up and reachable from Throng's servers`,
      );
    case "discovery_not_found":
      return new ThrongError(
        "validation_failed",
        `No discovery document at ${where}: the issuer URL is wrong (Okta: https://YOUR.okta.com, Entra ID: https://login.microsoftonline.com/TENANT/v2.0, Google: https://accounts.google.com, Keycloak: https://HOST/realms/REALM)`,
      );
    case "issuer_mismatch":
      return new ThrongError(
        "validation_failed",
        `The identity provider names itself differently: ${error.message}. Use the issuer exactly as its discovery document gives it`,
      );
    case "discovery_untrusted_origin":
    case "discovery_private_host":
      return new ThrongError(
        "validation_failed",
        `${error.message.replace(/trustedOrigins/g, "SSO_PRIVATE_IDP_ORIGINS")}`,
      );
    default:
      return new ThrongError(
        "validation_failed",
        `The identity provider's discovery document cannot be used: ${error.message}`,
      );
  }
}

/** OIDC discovery through the SSO plugin's own pipeline (validation of the document and of every endpoint). */
export function createOidcDiscovery(policy: IdpHostPolicy): OidcDiscovery {
  return async (issuer) => {
    await policy.assertReachable(issuer, "The issuer");
    try {
      const found = await discoverOIDCConfig({
        issuer,
        timeout: FETCH_TIMEOUT_MS,
        isTrustedOrigin: policy.allowedLiterally,
      });
      const auth =
        found.tokenEndpointAuthentication === "client_secret_post" ? "client_secret_post" : "client_secret_basic";
      const endpoints: OidcEndpoints = {
        issuer: found.issuer,
        discoveryEndpoint: found.discoveryEndpoint,
        authorizationEndpoint: found.authorizationEndpoint,
        tokenEndpoint: found.tokenEndpoint,
        jwksEndpoint: found.jwksEndpoint,
        userInfoEndpoint: found.userInfoEndpoint ?? null,
        tokenEndpointAuthentication: auth,
      };
      return endpoints;
    } catch (error) {
      if (error instanceof DiscoveryError) throw discoveryProblem(issuer, error);
      throw error;
    }
  };
}

function certificates(pems: string | string[]): SamlIdpMetadata["certificates"] {
  return [pems]
    .flat()
    .filter(Boolean)
    .flatMap((body) => {
      const pem = body.includes("BEGIN CERTIFICATE")
        ? body
        : `-----BEGIN CERTIFICATE-----\n${body.replace(/\s+/g, "").replace(/(.{64})/g, "$1\n")}\n-----END CERTIFICATE-----\n`;
      try {
        const cert = new X509Certificate(pem);
        return [{ pem, sha256: cert.fingerprint256, notAfter: new Date(cert.validTo).toISOString() }];
      } catch {
        return [];
      }
    });
}

/** SAML IdP metadata: fetched under the host policy (size-capped) and read with samlify, which the plugin uses too. */
export function createSamlMetadataReader(policy: IdpHostPolicy): SamlMetadataReader {
  return {
    async fetch(url) {
      await policy.assertReachable(url, "The metadata URL");
      let response: Response;
      try {
        response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      } catch (error) {
        throw new ThrongError(
          "unavailable",
          `Could not fetch the SAML metadata at ${url} (${(error as Error).message}): check the URL and that Throng's servers can reach it, or paste the metadata XML instead`,
        );
      }
      const text = await response.text();
      if (!response.ok)
        throw new ThrongError(
          "validation_failed",
          `The SAML metadata URL answered HTTP ${response.status}: copy the metadata URL from the identity provider again, or paste the XML`,
        );
      if (text.length > MAX_METADATA_BYTES)
        throw new ThrongError(
          "validation_failed",
          "The SAML metadata is over 100 KB: paste the XML of this one IdP's metadata instead",
        );
      return text;
    },
    read(xml) {
      let idp: ReturnType<typeof samlify.IdentityProvider>;
      try {
        idp = samlify.IdentityProvider({ metadata: xml });
      } catch (error) {
        throw new ThrongError(
          "validation_failed",
          `The SAML metadata cannot be read (${(error as Error).message}): give the identity provider's metadata XML (an EntityDescriptor with an IDPSSODescriptor)`,
        );
      }
      const entityId = idp.entityMeta.getEntityID();
      if (!entityId)
        throw new ThrongError(
          "validation_failed",
          "The SAML metadata names no entityID: give the identity provider's metadata XML",
        );
      // samlify looks a binding up by its short name ("redirect"); given the URN it answers every service as a map.
      const sso = idp.entityMeta.getSingleSignOnService("redirect");
      return {
        entityId,
        ssoUrl: typeof sso === "string" ? sso : null,
        certificates: certificates(idp.entityMeta.getX509Certificate("signing") ?? []),
      };
    },
  };
}

/** TXT records through node:dns, asking `servers` (host or host:port) when given, else the system's resolvers. */
export function createTxtResolver(servers: readonly string[]): TxtResolver {
  const resolver = new dns.Resolver({ timeout: 5_000, tries: 2 });
  if (servers.length) resolver.setServers([...servers]);
  return async (name) => {
    try {
      return await resolver.resolveTxt(name);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "ENODATA" || code === "ENOTFOUND") return [];
      throw new ThrongError(
        "unavailable",
        `DNS did not answer for ${name} (${code ?? (error as Error).message}): try again in a minute`,
      );
    }
  };
}
