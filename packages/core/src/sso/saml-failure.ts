/**
 * Why a SAML sign-in was refused, in words: Better Auth's SSO plugin (and samlify under it) refuse a bad assertion
 * with one "Invalid SAML response"; the sign-in page should say which of the usual causes it was and what to do.
 */

/** How far the identity provider's clock may be from Throng's (the SSO plugin and samlify are given the same). */
export const SAML_CLOCK_SKEW_MS = 5 * 60_000;

/** What Throng can read from a refused SAMLResponse, checked against the IdP's signing certificate. */
export interface SamlResponseFacts {
  /** The assertion itself carries an XML signature (not only the enclosing response). */
  assertionSigned: boolean;
  /** That signature verifies against a signing certificate of the IdP's metadata. */
  signatureVerifies: boolean;
  /** The assertion's validity window (Conditions, else the bearer SubjectConfirmationData), ISO timestamps. */
  notBefore: string | null;
  notOnOrAfter: string | null;
}

export interface SamlFailure {
  code: "saml_assertion_unsigned" | "saml_signature_invalid" | "saml_clock_skew" | "saml_assertion_expired";
  description: string;
}

const minutes = (ms: number) =>
  `${Math.max(1, Math.round(ms / 60_000))} minute${Math.round(ms / 60_000) === 1 ? "" : "s"}`;

/**
 * The first cause that explains the refusal, in the order the checks run: a signature must be there, then verify,
 * then the assertion must be valid now (within the allowed skew). Null: none of these; the plugin's words stand.
 */
export function samlFailure(
  facts: SamlResponseFacts,
  nowMs: number,
  skewMs: number = SAML_CLOCK_SKEW_MS,
): SamlFailure | null {
  if (!facts.assertionSigned) {
    return {
      code: "saml_assertion_unsigned",
      description: "the identity provider did not sign the assertion (Throng accepts only signed assertions)",
    };
  }
  if (!facts.signatureVerifies) {
    return {
      code: "saml_signature_invalid",
      description:
        "the assertion's signature does not match the identity provider's signing certificate (it was changed after signing, or the certificate was rotated)",
    };
  }
  const notBefore = facts.notBefore ? Date.parse(facts.notBefore) : NaN;
  if (notBefore - skewMs > nowMs) {
    return {
      code: "saml_clock_skew",
      description: `the assertion is valid only from ${facts.notBefore}, ${minutes(notBefore - nowMs)} ahead of Throng's clock (${minutes(skewMs)} allowed)`,
    };
  }
  const notOnOrAfter = facts.notOnOrAfter ? Date.parse(facts.notOnOrAfter) : NaN;
  if (notOnOrAfter + skewMs <= nowMs) {
    return {
      code: "saml_assertion_expired",
      description: `the assertion expired at ${facts.notOnOrAfter}, ${minutes(nowMs - notOnOrAfter)} before Throng received it`,
    };
  }
  return null;
}
