import { describe, expect, it } from "vitest";
import { emailDomain, joinRole, provesDomain, txtRecordName, txtRecordValue } from "./sso-rules";

describe("domain proof by DNS TXT", () => {
  it("is found among other TXT records, also when DNS split it into chunks", () => {
    expect(txtRecordName("example.com")).toBe("_throng-verification.example.com");
    expect(provesDomain([["v=spf1 -all"], ["throng-verification=", "abc123"]], "abc123")).toBe(true);
  });

  it("is not proven by another organisation's token or a record that merely contains the token", () => {
    expect(provesDomain([[txtRecordValue("other")]], "abc123")).toBe(false);
    expect(provesDomain([[`x ${txtRecordValue("abc123")}`]], "abc123")).toBe(false);
    expect(provesDomain([], "abc123")).toBe(false);
  });
});

describe("the role a person joins with", () => {
  const rules = [
    { value: "throng-admins", role: "admin" as const },
    { value: "auditors", role: "viewer" as const },
  ];

  it("takes the first rule whose value the claim holds, from a list or a single value", () => {
    expect(joinRole(["engineering", "throng-admins"], rules, "member")).toBe("admin");
    expect(joinRole("auditors", rules, "member")).toBe("viewer");
    expect(joinRole(["auditors", "throng-admins"], rules, "member")).toBe("admin");
  });

  it("reads a space- or comma-separated claim as several values", () => {
    expect(joinRole("engineering auditors", rules, "member")).toBe("viewer");
    expect(joinRole("engineering,throng-admins", rules, "member")).toBe("admin");
  });

  it("gives the default when no rule matches, the claim is missing or not text, and never matches a part of a value", () => {
    expect(joinRole(["throng-admins-old"], rules, "member")).toBe("member");
    expect(joinRole(undefined, rules, "viewer")).toBe("viewer");
    expect(joinRole({ groups: "throng-admins" }, rules, "member")).toBe("member");
  });
});

describe("an email's domain", () => {
  it("is lower-cased and needs a dot", () => {
    expect(emailDomain("Ada@Example.COM")).toBe("example.com");
    expect(emailDomain("ada@localhost")).toBeNull();
    expect(emailDomain("no-at-sign")).toBeNull();
  });
});
