import { describe, expect, it } from "vitest";
import {
  assignableRoles,
  can,
  invitableRoles,
  mayManageMember,
  rolesWhoCan,
  tokenScopesFor,
} from "./settings-permissions";
import type { Action, Role } from "@throng/protocol/orgs";

/** Asserts each action `role` may take and each it may not, naming the pair that fails. */
function expectActions(role: Role | undefined, allowed: readonly Action[], refused: readonly Action[]) {
  for (const action of allowed) expect(can(role, action), `${role} ${action}`).toBe(true);
  for (const action of refused) expect(can(role, action), `${role} ${action}`).toBe(false);
}

describe("can", () => {
  it("lets viewers read but not write plans or start runs", () => {
    expectActions("viewer", ["plan.read"], ["plan.write", "run.start", "token.manage"]);
  });

  it("lets members run plans and manage tokens but not members, settings or the audit log", () => {
    expectActions("member", ["run.start", "token.manage"], ["member.manage", "settings.manage", "audit.read"]);
  });

  it("lets admins and owners manage members, settings and read the audit log", () => {
    for (const role of ["admin", "owner"] as const) {
      expectActions(role, ["member.manage", "settings.manage", "audit.read"], []);
    }
  });

  it("treats an unknown role as a viewer", () => {
    expectActions(undefined, ["plan.read"], ["plan.write"]);
  });
});

describe("rolesWhoCan", () => {
  it("names the roles a refused section is for, from the matrix, least powerful first", () => {
    expect(rolesWhoCan("plan.read")).toBe("viewers, members, admins and owners");
    expect(rolesWhoCan("token.manage")).toBe("members, admins and owners");
    for (const action of ["audit.read", "secret.manage", "member.manage"] as const) {
      expect(rolesWhoCan(action), action).toBe("admins and owners");
    }
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
