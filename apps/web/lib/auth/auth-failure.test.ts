import { describe, expect, it } from "vitest";
import { authFailureText } from "./auth-failure";

describe("authFailureText", () => {
  it("shows our API's message (a rate limit), then Better Auth's, then the status", () => {
    expect(
      authFailureText(
        { status: 429, error: { code: "rate_limited", message: "Too many attempts; try again in 42 s" } },
        "Sign-up",
      ),
    ).toBe("Too many attempts; try again in 42 s");
    expect(authFailureText({ status: 401, message: "Invalid email or password" }, "Sign-in")).toBe(
      "Invalid email or password",
    );
    expect(authFailureText({ status: 500 }, "Sign-up")).toBe("Sign-up failed (HTTP 500).");
  });
});
