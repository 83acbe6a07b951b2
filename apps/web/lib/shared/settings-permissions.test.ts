import { describe, expect, it } from "vitest";
import { assignableRoles, can, invitableRoles, mayManageMember, tokenScopesFor } from "./settings-permissions";

describe("can", () => {
  it("lets viewers read but not write plans or start runs", () => {
    expect(can("viewer", "plan.read")).toBe(true);
    expect(can("viewer", "plan.write")).toBe(false);
    expect(can("viewer", "run.start")).toBe(false);
    expect(can("viewer", "token.manage")).toBe(false);
  });

  it("lets members run plans and manage tokens but not members, settings or the audit log", () => {
    expect(can("member", "run.start")).toBe(true);
    expect(can("member", "token.manage")).toBe(true);
    expect(can("member", "member.manage")).toBe(false);
    expect(can("member", "settings.manage")).toBe(false);
    expect(can("member", "audit.read")).toBe(false);
  });

  it("lets admins and owners manage members, settings and read the audit log", () => {
    for (const role of ["admin", "owner"] as const) {
      expect(can(role, "member.manage")).toBe(true);
      expect(can(role, "settings.manage")).toBe(true);
      expect(can(role, "audit.read")).toBe(true);
    }
  });

  it("treats an unknown role as a viewer", () => {
    expect(can(undefined, "plan.read")).toBe(true);
    expect(can(undefined, "plan.write")).toBe(false);
  });
});

describe("member management", () => {
  it("keeps owners out of an admin's reach", () => {
    expect(mayManageMember("admin", "member")).toBe(true);
    expect(mayManageMember("admin", "owner")).toBe(false);
    expect(mayManageMember("owner", "owner")).toBe(true);
    expect(mayManageMember("member", "viewer")).toBe(false);
  });

  it("offers owner only to owners, and never on an invitation", () => {
    expect(assignableRoles("owner")).toEqual(["owner", "admin", "member", "viewer"]);
    expect(assignableRoles("admin")).toEqual(["admin", "member", "viewer"]);
    expect(assignableRoles("member")).toEqual([]);
    expect(invitableRoles("owner")).toEqual(["admin", "member", "viewer"]);
  });
});

describe("tokenScopesFor", () => {
  it("never offers a scope above the creator's role", () => {
    expect(tokenScopesFor("owner")).toEqual(["read", "run", "admin"]);
    expect(tokenScopesFor("admin")).toEqual(["read", "run", "admin"]);
    expect(tokenScopesFor("member")).toEqual(["read", "run"]);
    expect(tokenScopesFor("viewer")).toEqual([]);
  });
});

describe("the protocol's matrix", () => {
  it("is the one the dashboard reads, action by action", async () => {
    const { PERMISSIONS } = await import("@throng/protocol/orgs");
    for (const [action, roles] of Object.entries(PERMISSIONS)) {
      for (const role of ["owner", "admin", "member", "viewer"] as const) {
        expect(can(role, action as keyof typeof PERMISSIONS)).toBe(roles.includes(role));
      }
    }
  });
});
