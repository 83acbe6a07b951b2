import { describe, expect, it } from "vitest";
import { ssoFailureText } from "./sso-failure";

describe("ssoFailureText: the sign-in page's words for a failed SSO return", () => {
  it("names the cause and what to do for each kind of failure", () => {
    expect(ssoFailureText("sso_domain_not_verified", "eve@evil.test is not in a verified domain")).toMatch(
      /not verified.*eve@evil\.test.*Settings → Single sign-on/,
    );
    expect(ssoFailureText("state_mismatch")).toMatch(/already used or took too long.*Start again/);
    expect(ssoFailureText("discovery_failed")).toMatch(/could not be reached/);
    expect(ssoFailureText("saml_assertion_signature_required")).toMatch(/not signed/);
    expect(ssoFailureText("invalid_provider", "SAML assertion expired")).toMatch(/expired or not yet valid.*clock/);
    expect(ssoFailureText("invalid_provider", "token_not_verified")).toMatch(
      /could not be used \(token_not_verified\)/,
    );
    expect(ssoFailureText("http_500")).toBe(
      "Single sign-on failed (http_500). Try again, or sign in with your password if your organisation allows it.",
    );
  });

  it("tells the four refused SAML assertions apart (the codes the API's SAML return gives), each with what to do", () => {
    expect(ssoFailureText("saml_assertion_unsigned", "the identity provider did not sign the assertion")).toMatch(
      /not signed.*accepts only signed assertions.*Sign SAML assertion/,
    );
    expect(ssoFailureText("saml_signature_invalid")).toMatch(
      /failed its signature check\. Nobody was signed in.*update its metadata/,
    );
    expect(ssoFailureText("saml_clock_skew", "valid only from 10:10, 10 minutes ahead")).toMatch(
      /clock and Throng's disagree \(valid only from 10:10, 10 minutes ahead\).*NTP/,
    );
    expect(ssoFailureText("saml_assertion_expired")).toMatch(/had expired when it reached Throng.*Start again/);
  });
});
