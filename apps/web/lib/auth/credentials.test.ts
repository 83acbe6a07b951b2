import { describe, expect, it } from "vitest";
import { EMPTY_CREDENTIALS, firstInvalidField, MIN_PASSWORD, validateCredentials } from "./credentials";

describe("validateCredentials", () => {
  it("asks a sign-up for a name, an email and a password of at least MIN_PASSWORD characters", () => {
    const errors = validateCredentials("sign-up", { name: "  ", email: "nobody", password: "short" });
    expect(errors).toEqual({
      name: "Enter your name.",
      email: "Enter an email address like you@example.com.",
      password: `Use at least ${MIN_PASSWORD} characters.`,
    });
    expect(firstInvalidField(errors)).toBe("name");
  });

  it("asks a sign-in for an email and any password, never a name", () => {
    expect(validateCredentials("sign-in", EMPTY_CREDENTIALS)).toEqual({
      email: "Enter an email address like you@example.com.",
      password: "Enter your password.",
    });
    expect(validateCredentials("sign-in", { name: "", email: " ada@example.com ", password: "x" })).toEqual({});
    expect(firstInvalidField({ password: "Enter your password." })).toBe("password");
  });
});
