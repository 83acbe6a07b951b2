// Typed calls for the settings area and invitations (routes in apps/api/src/routes/org.routes.ts).
// Kept apart from lib/shared/api.ts so the settings work and the run/plan work do not edit one file.
import {
  ApiTokenCreated,
  ApiTokenView,
  AuditEntry,
  InvitationCreated,
  InvitationPreview,
  InvitationView,
  MemberView,
  Membership,
  OrgSettings,
  type CreateApiToken,
  type CreateInvitation,
  type Role,
} from "@throng/protocol/orgs";
import { apiRequest, listOf } from "../shared/api-client";

const Orgs = listOf("orgs", Membership);
const Members = listOf("members", MemberView);
const Invitations = listOf("invitations", InvitationView);
const Tokens = listOf("tokens", ApiTokenView);
const Audit = listOf("entries", AuditEntry);
const Accepted = {
  safeParse: (input: unknown) =>
    typeof input === "object" && input !== null && typeof (input as { orgId?: unknown }).orgId === "string"
      ? { success: true as const, data: { orgId: (input as { orgId: string }).orgId } }
      : { success: false as const, error: { issues: [{ path: ["orgId"], message: "expected a string" }] } },
};

const path = (...parts: string[]) => `/api/${parts.map(encodeURIComponent).join("/")}`;

export const settingsApi = {
  listOrgs: (signal?: AbortSignal) => apiRequest("GET", "/api/orgs", Orgs, undefined, signal),
  switchOrg: (orgId: string) => apiRequest<void>("POST", "/api/orgs/switch", null, { orgId }),

  listMembers: (signal?: AbortSignal) => apiRequest("GET", "/api/members", Members, undefined, signal),
  changeRole: (memberId: string, role: Role) => apiRequest<void>("PATCH", path("members", memberId), null, { role }),
  removeMember: (memberId: string) => apiRequest<void>("DELETE", path("members", memberId), null),
  leave: () => apiRequest<void>("POST", "/api/members/leave", null),

  listInvitations: (signal?: AbortSignal) => apiRequest("GET", "/api/invitations", Invitations, undefined, signal),
  createInvitation: (body: CreateInvitation) => apiRequest("POST", "/api/invitations", InvitationCreated, body),
  revokeInvitation: (id: string) => apiRequest<void>("DELETE", path("invitations", id), null),
  /** Public: which organisation and role a link is for, before signing in. */
  previewInvitation: (token: string, signal?: AbortSignal) =>
    apiRequest("GET", `/api/invitations/preview/${encodeURIComponent(token)}`, InvitationPreview, undefined, signal),
  acceptInvitation: (token: string) => apiRequest("POST", "/api/invitations/accept", Accepted, { token }),

  listTokens: (signal?: AbortSignal) => apiRequest("GET", "/api/tokens", Tokens, undefined, signal),
  createToken: (body: CreateApiToken) => apiRequest("POST", "/api/tokens", ApiTokenCreated, body),
  revokeToken: (id: string) => apiRequest<void>("DELETE", path("tokens", id), null),

  listAudit: (signal?: AbortSignal) => apiRequest("GET", "/api/audit", Audit, undefined, signal),
  getSettings: (signal?: AbortSignal) => apiRequest("GET", "/api/org/settings", OrgSettings, undefined, signal),
  saveSettings: (body: OrgSettings) => apiRequest("PUT", "/api/org/settings", OrgSettings, body),
};
