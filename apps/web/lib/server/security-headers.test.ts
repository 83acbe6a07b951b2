import { describe, expect, it } from "vitest";
import { COMMON_SECURITY_HEADERS, NON_DOCUMENT_CSP, newNonce, pageCsp } from "./security-headers";

describe("security headers", () => {
  it("lets pages run only this origin's scripts and the nonce'd inline ones, and talk only to this origin", () => {
    const csp = pageCsp("abc");
    expect(csp).toContain("script-src 'self' 'nonce-abc' 'strict-dynamic'");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    expect(pageCsp("abc", true)).toContain("'unsafe-eval'");
  });

  it("allows nothing to run from responses that are not pages", () => {
    expect(NON_DOCUMENT_CSP).toMatch(/^default-src 'none'; frame-ancestors 'none'/);
  });

  it("sends nosniff and strict-origin-when-cross-origin everywhere", () => {
    const byName = Object.fromEntries(COMMON_SECURITY_HEADERS.map(({ key, value }) => [key, value]));
    expect(byName["X-Content-Type-Options"]).toBe("nosniff");
    expect(byName["Referrer-Policy"]).toBe("strict-origin-when-cross-origin");
  });

  it("makes a fresh nonce each time", () => {
    const nonce = newNonce();
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(newNonce()).not.toBe(nonce);
  });
});
