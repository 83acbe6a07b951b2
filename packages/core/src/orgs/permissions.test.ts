import { describe, expect, it } from "vitest";
import { Action, Role } from "@throng/protocol/orgs";
import { authorize, can, lowerRole, PERMISSIONS } from "./permissions";

describe("permission matrix", () => {
  it("owners may do everything, and every action is someone's", () => {
    for (const action of Action.options) expect(can("owner", action)).toBe(true);
    expect(Object.keys(PERMISSIONS).sort()).toEqual([...Action.options].sort());
  });

  it("viewers only read", () => {
    const allowed = Action.options.filter((a) => can("viewer", a));
    expect(allowed).toEqual(["org.read", "plan.read", "run.read", "agent.read", "settings.read"]);
  });

  it("members run load but do not manage the fleet, people, settings or the audit log", () => {
    const refused = Action.options.filter((a) => !can("member", a));
    expect(refused).toEqual([
      "agent.enrol",
      "agent.manage",
      "member.manage",
      "audit.read",
      "settings.manage",
      "secret.manage",
    ]);
  });

  it("a role never gains what a higher one lacks", () => {
    const ranked = Role.options; // most powerful first
    for (const action of Action.options) {
      for (let i = 1; i < ranked.length; i++) {
        if (can(ranked[i]!, action)) expect(can(ranked[i - 1]!, action)).toBe(true);
      }
    }
  });

  it("authorize names the role and the action", () => {
    const actor = { orgId: "o", role: "member" as const, userId: "u", label: "u@x", via: "session" as const };
    expect(() => authorize(actor, "audit.read")).toThrow(/Your role \(member\) may not audit: read/);
    expect(lowerRole("admin", "viewer")).toBe("viewer");
  });
});
