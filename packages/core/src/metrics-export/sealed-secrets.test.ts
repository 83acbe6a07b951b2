import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSealer, credentialsKey } from "./sealed-secrets";

describe("sealed credentials", () => {
  it("opens what it sealed, never shows the plaintext, and differs each time", () => {
    const sealer = createSealer(credentialsKey({ authSecret: "a".repeat(32) }));
    const a = sealer.seal("token-123");
    expect(a).not.toContain("token-123");
    expect(sealer.seal("token-123")).not.toBe(a);
    expect(sealer.open(a)).toBe("token-123");
  });
  it("refuses a value sealed under another key or altered", () => {
    const sealed = createSealer(credentialsKey({ authSecret: "a".repeat(32) })).seal("x");
    expect(() => createSealer(credentialsKey({ authSecret: "b".repeat(32) })).open(sealed)).toThrow();
    const dedicated = createSealer(
      credentialsKey({ authSecret: "a".repeat(32), dedicatedKey: randomBytes(32).toString("base64") }),
    );
    expect(() => dedicated.open(sealed)).toThrow();
    const [iv, tag, body] = sealed.split(".");
    expect(() =>
      createSealer(credentialsKey({ authSecret: "a".repeat(32) })).open([iv, tag, `${body}A`].join(".")),
    ).toThrow();
  });
  it("wants a dedicated key of 32 bytes", () => {
    expect(() =>
      credentialsKey({ authSecret: "a".repeat(32), dedicatedKey: randomBytes(16).toString("base64") }),
    ).toThrow(/32 bytes/);
  });
});
