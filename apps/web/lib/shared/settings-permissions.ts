// What the signed-in user's role lets the dashboard offer. The matrix itself is the protocol's (core enforces
// the same one), so a hidden button and a refused request cannot drift apart.
import { can as roleCan, Role, type Action, type TokenScope } from "@throng/protocol/orgs";

const RANK: Record<Role, number> = { owner: 3, admin: 2, member: 1, viewer: 0 };
const ALL: readonly Role[] = Role.options;

/** Roles in the order the role selects list them, most powerful first. */
export const ROLES: readonly Role[] = ALL;

/** A missing role (never for a browser session) is treated as the least powerful one. */
export function can(role: Role | undefined, action: Action): boolean {
  return roleCan(role ?? "viewer", action);
}

/** Who may take `action`, least powerful first, in words: "admins and owners", "members, admins and owners". */
export function rolesWhoCan(action: Action): string {
  const names = [...ALL]
    .reverse()
    .filter((role) => can(role, action))
    .map((role) => `${role}s`);
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : (names[0] ?? "no one");
}

/** May `actor` change or remove a member who currently has `target`? Only owners touch owners. */
export function mayManageMember(actor: Role | undefined, target: Role): boolean {
  if (!can(actor, "member.manage")) return false;
  return target !== "owner" || actor === "owner";
}

/** Roles `actor` may give someone: owners any, admins anything but owner. */
export function assignableRoles(actor: Role | undefined): Role[] {
  if (!can(actor, "member.manage")) return [];
  return ALL.filter((role) => role !== "owner" || actor === "owner");
}

/** Invitation links never make owners (CreateInvitation refuses it). */
export function invitableRoles(actor: Role | undefined): Exclude<Role, "owner">[] {
  return assignableRoles(actor).filter((role): role is Exclude<Role, "owner"> => role !== "owner");
}

const SCOPE_ROLE: Record<TokenScope, Role> = { read: "viewer", run: "member", admin: "admin" };

/** Token scopes never above the creator's own role. */
export function tokenScopesFor(actor: Role | undefined): TokenScope[] {
  if (!can(actor, "token.manage")) return [];
  const rank = RANK[actor ?? "viewer"];
  return (["read", "run", "admin"] as const).filter((scope) => RANK[SCOPE_ROLE[scope]] <= rank);
}

/** What each token scope allows: the select offers the scope's name, the hint under it says this. */
export const SCOPE_TEXT: Record<TokenScope, string> = {
  read: "Sees plans, runs and agents.",
  run: "Also writes plans and starts runs.",
  admin: "Also manages agents and settings.",
};

export const ROLE_TEXT: Record<Role, string> = {
  owner: "Owner",
  admin: "Admin",
  member: "Member",
  viewer: "Viewer",
};
