import { z } from "zod";

/** Roles in an organisation, most powerful first. */
export const Role = z.enum(["owner", "admin", "member", "viewer"]);
export type Role = z.infer<typeof Role>;

/** Everything the permission matrix (core/orgs/permissions.ts) decides on. */
export const Action = z.enum([
  "org.read",
  "plan.read",
  "plan.write",
  "run.read",
  "run.start",
  "run.abort",
  "run.annotate",
  "agent.read",
  "agent.enrol",
  "agent.manage",
  "member.manage",
  "token.manage",
  "audit.read",
  "settings.read",
  "settings.manage",
  "share.manage",
  "secret.manage",
]);
export type Action = z.infer<typeof Action>;

/** Who may do what: the one permission matrix. Core enforces it; the browser reads it to hide what a role may not do. */
export const PERMISSIONS: Record<Action, readonly Role[]> = {
  "org.read": ["owner", "admin", "member", "viewer"],
  "plan.read": ["owner", "admin", "member", "viewer"],
  "plan.write": ["owner", "admin", "member"],
  "run.read": ["owner", "admin", "member", "viewer"],
  "run.start": ["owner", "admin", "member"],
  "run.abort": ["owner", "admin", "member"],
  /** A run's note and tags: whoever may start runs may write about them. */
  "run.annotate": ["owner", "admin", "member"],
  "agent.read": ["owner", "admin", "member", "viewer"],
  "agent.enrol": ["owner", "admin"],
  "agent.manage": ["owner", "admin"],
  "member.manage": ["owner", "admin"],
  "token.manage": ["owner", "admin", "member"],
  "audit.read": ["owner", "admin"],
  "settings.read": ["owner", "admin", "member", "viewer"],
  "settings.manage": ["owner", "admin"],
  "share.manage": ["owner", "admin", "member"],
  /** Organisation secrets: list their names, set and delete them (a value is never answered back, to anyone). */
  "secret.manage": ["owner", "admin"],
};

/** True when `role` may do `action`. */
export function can(role: Role, action: Action): boolean {
  return PERMISSIONS[action].includes(role);
}

/** GET /api/invitations/preview/:token: what joining through this link means, before accepting it. */
export const InvitationPreview = z.object({ orgName: z.string(), role: Role, expiresAt: z.string() });
export type InvitationPreview = z.infer<typeof InvitationPreview>;

/** GET /api/orgs items: the organisations the user belongs to. */
export const Membership = z.object({
  orgId: z.string(),
  name: z.string(),
  slug: z.string(),
  role: Role,
  active: z.boolean(),
});
export type Membership = z.infer<typeof Membership>;

/** POST /api/orgs/switch body. */
export const SwitchOrg = z.object({ orgId: z.string().min(1, "name the organisation to switch to") });
export type SwitchOrg = z.infer<typeof SwitchOrg>;

/** GET /api/members items. */
export const MemberView = z.object({
  id: z.string(),
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role: Role,
  joinedAt: z.string(),
});
export type MemberView = z.infer<typeof MemberView>;

/** PATCH /api/members/:id body. */
export const ChangeRole = z.object({ role: Role });
export type ChangeRole = z.infer<typeof ChangeRole>;

/** POST /api/invitations body: an invitation is a link; whoever opens it signed in joins with `role`. */
export const CreateInvitation = z.object({
  role: Role.exclude(["owner"]).default("member"),
  expiresInHours: z
    .number()
    .int()
    .min(1, "must be at least 1 hour")
    .max(24 * 30, "must be at most 30 days")
    .default(72),
});
export type CreateInvitation = z.infer<typeof CreateInvitation>;

/** POST /api/invitations answer: the link is shown once. */
export const InvitationCreated = z.object({
  id: z.string().uuid(),
  link: z.string(),
  token: z.string(),
  role: Role,
  expiresAt: z.string(),
});
export type InvitationCreated = z.infer<typeof InvitationCreated>;

/** GET /api/invitations items (pending ones). */
export const InvitationView = z.object({
  id: z.string().uuid(),
  role: Role,
  expiresAt: z.string(),
  createdBy: z.string().nullable(),
});
export type InvitationView = z.infer<typeof InvitationView>;

/** POST /api/invitations/accept body. */
export const AcceptInvitation = z.object({ token: z.string().min(1, "paste the invitation link or its token") });
export type AcceptInvitation = z.infer<typeof AcceptInvitation>;

/** API token scopes: read (viewer), run (member), admin (admin); never more than the creator's own role. */
export const TokenScope = z.enum(["read", "run", "admin"]);
export type TokenScope = z.infer<typeof TokenScope>;

/** POST /api/tokens body. */
export const CreateApiToken = z.object({
  name: z.string().trim().min(1, "give the token a name, e.g. the CI job using it").max(100),
  scope: TokenScope.default("run"),
  expiresInDays: z.number().int().min(1, "must be at least 1 day").max(365, "must be at most 365 days").default(90),
});
export type CreateApiToken = z.infer<typeof CreateApiToken>;

/** GET /api/tokens items; the secret itself is shown only once, in ApiTokenCreated. */
export const ApiTokenView = z.object({
  id: z.string().uuid(),
  name: z.string(),
  scope: TokenScope,
  createdAt: z.string(),
  expiresAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ApiTokenView = z.infer<typeof ApiTokenView>;

export const ApiTokenCreated = ApiTokenView.extend({ token: z.string() });
export type ApiTokenCreated = z.infer<typeof ApiTokenCreated>;

/** GET /api/audit items. */
export const AuditEntry = z.object({
  at: z.string(),
  actor: z.string(),
  action: z.string(),
  target: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** One target a run may address: a host (name or IP), optionally with a port. */
export const TargetRule = z
  .string()
  .trim()
  .regex(
    /^(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-fA-F:]+\](:\d{1,5})?$/,
    "use host, host:port, *.domain or [ipv6]:port",
  );

/** GET/PUT /api/org/settings: what runs of this organisation may do. */
export const OrgSettings = z.object({
  /** Empty: any target. Otherwise a run's target host[:port] must match one rule. */
  targetAllowList: z.array(TargetRule).max(200).default([]),
  maxClients: z.number().int().min(1).max(10_000_000).default(1_000_000),
  maxDurationSec: z
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(86_400),
});
export type OrgSettings = z.infer<typeof OrgSettings>;
