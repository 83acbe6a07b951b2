/**
 * What the sign-in page says when single sign-on sends the browser back with `?error=CODE&error_description=…`
 * (the API's SSO return, or Better Auth's). Plain words and what to do; the provider's own words in brackets.
 */
export function ssoFailureText(code: string, description?: string | null): string {
  const c = code.toLowerCase();
  const detail = description ? ` (${description})` : "";
  if (c === "sso_domain_not_verified") {
    return `Your identity provider vouched for an email whose domain this organisation has not verified${detail}. Sign in with your work email, or ask your Throng admin to verify the domain under Settings → Single sign-on.`;
  }
  if (["state_mismatch", "invalid_state", "please_restart_the_process", "invalid_or_expired_relay_state"].includes(c)) {
    return "This sign-in was already used or took too long. Start again: enter your work email and choose “Sign in with SSO”.";
  }
  if (c === "sso_provider_disabled")
    return `Your organisation's identity provider is turned off in Throng${detail}. Ask your Throng admin to turn it on under Settings → Single sign-on.`;
  if (c === "discovery_failed")
    return `Your identity provider could not be reached${detail}. Try again in a minute; if it persists, ask your Throng admin to check the provider.`;
  if (c === "access_denied")
    return `Your identity provider did not sign you in to Throng${detail}. Ask your IT team whether Throng is assigned to you.`;
  if (c === "saml_assertion_unsigned" || c === "saml_assertion_signature_required") {
    return `Your identity provider sent an assertion that is not signed${detail}. Throng accepts only signed assertions: ask your IT team to sign the assertion (Okta: "Assertion Signature: Signed"; Entra ID: "Sign SAML assertion"; Keycloak: "Sign assertions" on), then try again.`;
  }
  if (c === "saml_signature_invalid") {
    return `Your identity provider's answer failed its signature check${detail}. Nobody was signed in. If the provider's signing certificate was just renewed, ask your Throng admin to update its metadata under Settings → Single sign-on; otherwise the answer was altered on the way: tell your IT team.`;
  }
  if (c === "saml_clock_skew") {
    return `Your identity provider's clock and Throng's disagree${detail}. Ask your IT team to check the provider's time (NTP); then try again.`;
  }
  if (c === "saml_assertion_expired") {
    return `Your identity provider's answer had expired when it reached Throng${detail}. Start again from “Sign in with SSO”; if it keeps happening, the provider's clock may be behind.`;
  }
  if (c.startsWith("saml_") && c.includes("signature")) {
    return `Your identity provider sent an assertion that is not signed, or not signed by the certificate Throng knows${detail}. Ask your Throng admin to turn on assertion signing at the provider, or to update its metadata.`;
  }
  if (
    /expired|not_?before|not_?on_?or_?after|clock|skew/.test(c) ||
    /expired|clock|not yet valid/i.test(description ?? "")
  ) {
    return `Your identity provider's answer was expired or not yet valid${detail}: its clock or Throng's may be off. Try again; if it persists, ask your Throng admin.`;
  }
  if (c === "invalid_provider" || c.startsWith("saml_")) {
    return `Your identity provider's answer could not be used${detail}. Try again; if it persists, ask your Throng admin to check the provider under Settings → Single sign-on.`;
  }
  return `Single sign-on failed${description ? `: ${description}` : ` (${code})`}. Try again, or sign in with your password if your organisation allows it.`;
}
