import { ThrongError } from "@throng/protocol/errors";
import { type Action, can, PERMISSIONS, Role } from "@throng/protocol/orgs";

/** Roles from most to least powerful; a token's scope caps its creator's role. */
export const ROLE_RANK: Record<Role, number> = { owner: 3, admin: 2, member: 1, viewer: 0 };

/** Who is asking, in which organisation: every org-scoped core call takes one. */
export interface Actor {
  orgId: string;
  role: Role;
  /** The signed-in user, or the user who created the API token. */
  userId: string;
  /** How the audit log names this actor: an email, or "token <name>". */
  label: string;
  /** How people read it in a run's events ("aborted by Ann Lee"): the user's name; the label when left out. */
  name?: string;
  via: "session" | "api-token";
}

/** Throws forbidden, naming the action and the roles that may do it. */
export function authorize(actor: Actor, action: Action): void {
  if (can(actor.role, action)) return;
  const allowed = PERMISSIONS[action].join(", ");
  throw new ThrongError(
    "forbidden",
    `Your role (${actor.role}) may not ${action.replace(".", ": ")}; ask an ${allowed.includes("admin") ? "admin or owner" : "owner"} of the organisation`,
  );
}

export function lowerRole(a: Role, b: Role): Role {
  return ROLE_RANK[a] <= ROLE_RANK[b] ? a : b;
}

export { can, PERMISSIONS, Role };
