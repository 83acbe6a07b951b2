import { describe, expect, it } from "vitest";
import { samlFailure, type SamlResponseFacts } from "./saml-failure";

const NOW = Date.parse("2026-11-27T10:00:00Z");
const good: SamlResponseFacts = {
  assertionSigned: true,
  signatureVerifies: true,
  notBefore: "2026-11-27T09:59:55Z",
  notOnOrAfter: "2026-11-27T10:05:00Z",
};

describe("why a SAML assertion was refused", () => {
  it("a sound assertion has no failure to explain", () => {
    expect(samlFailure(good, NOW)).toBeNull();
  });

  it("an unsigned assertion is named before anything else, even when also expired", () => {
    expect(samlFailure({ ...good, assertionSigned: false, notOnOrAfter: "2026-11-27T08:00:00Z" }, NOW)?.code).toBe(
      "saml_assertion_unsigned",
    );
  });

  it("a signature that does not verify is a forged or re-signed assertion", () => {
    expect(samlFailure({ ...good, signatureVerifies: false }, NOW)?.code).toBe("saml_signature_invalid");
  });

  it.each([
    {
      refused: "valid only from ten minutes ahead is clock skew, naming how far ahead",
      window: { notBefore: "2026-11-27T10:10:00Z", notOnOrAfter: "2026-11-27T10:15:00Z" },
      code: "saml_clock_skew",
      says: "10 minutes ahead of Throng's clock (5 minutes allowed)",
    },
    {
      refused: "whose window ended over five minutes ago is expired, naming when",
      window: { notBefore: "2026-11-27T08:55:00Z", notOnOrAfter: "2026-11-27T09:00:00Z" },
      code: "saml_assertion_expired",
      says: "expired at 2026-11-27T09:00:00Z, 60 minutes before",
    },
  ])("an assertion $refused", ({ window, code, says }) => {
    expect(samlFailure({ ...good, ...window }, NOW)).toEqual({ code, description: expect.stringContaining(says) });
  });

  it("an IdP clock up to five minutes ahead or behind is allowed", () => {
    expect(samlFailure({ ...good, notBefore: "2026-11-27T10:04:00Z" }, NOW)).toBeNull();
    expect(samlFailure({ ...good, notOnOrAfter: "2026-11-27T09:56:00Z" }, NOW)).toBeNull();
  });
});
