import { ThrongError } from "@throng/protocol/errors";
import {
  type AcceptInvitation,
  type ChangeRole,
  type CreateInvitation,
  OrgSettings,
  Role,
  type InvitationCreated,
  type InvitationPreview,
  type InvitationView,
  type MemberView,
  type Membership,
} from "@throng/protocol/orgs";
import type { OrgRepo } from "@throng/db/repos/orgs";
import type { Clock } from "../ports";
import { findLiveSecret, generateSecret, hashSecret } from "../fleet/secrets";
import type { AuditLog } from "./audit";
import { authorize, ROLE_RANK, type Actor } from "./permissions";

export const INVITATION_PREFIX = "thr_inv_";

/** Memberships, roles, invitation links and org settings. */
export function createOrgService(deps: { orgs: OrgRepo; audit: AuditLog; clock: Clock; webOrigin: string }) {
  const { orgs, audit, clock } = deps;
  const now = () => new Date(clock.now());

  async function member(actor: Actor, memberId: string) {
    const found = (await orgs.listMembers(actor.orgId)).find((m) => m.id === memberId);
    if (!found) throw new ThrongError("not_found", `No member ${memberId} in this organisation`);
    return found;
  }

  /** Admins manage members and viewers; only owners touch owners or make new ones. */
  function assertMayManage(actor: Actor, targetRole: string, newRole?: string) {
    authorize(actor, "member.manage");
    if ((targetRole === "owner" || newRole === "owner") && actor.role !== "owner") {
      throw new ThrongError("forbidden", "Only an owner may change an owner or make someone owner");
    }
  }

  async function assertNotLastOwner(orgId: string, memberRole: string) {
    if (memberRole !== "owner") return;
    const owners = (await orgs.listMembers(orgId)).filter((m) => m.role === "owner");
    if (owners.length <= 1)
      throw new ThrongError("conflict", "An organisation needs an owner: make someone else owner first");
  }

  return {
    async memberships(userId: string, activeOrgId: string): Promise<Membership[]> {
      return (await orgs.listMemberships(userId)).map((m) => ({
        orgId: m.orgId,
        name: m.orgName,
        slug: m.orgSlug,
        role: Role.parse(m.role),
        active: m.orgId === activeOrgId,
      }));
    },

    async switchOrg(userId: string, sessionId: string, orgId: string): Promise<void> {
      if (!(await orgs.membership(userId, orgId)))
        throw new ThrongError("not_found", `You are not a member of organisation ${orgId}`);
      await orgs.setSessionOrg(userId, sessionId, orgId);
    },

    async members(actor: Actor): Promise<MemberView[]> {
      authorize(actor, "org.read");
      return (await orgs.listMembers(actor.orgId)).map((m) => ({
        id: m.id,
        userId: m.userId,
        email: m.email,
        name: m.name,
        role: Role.parse(m.role),
        joinedAt: m.joinedAt.toISOString(),
      }));
    },

    async changeRole(actor: Actor, memberId: string, input: ChangeRole): Promise<void> {
      const { role } = input;
      const target = await member(actor, memberId);
      assertMayManage(actor, target.role, role);
      if (ROLE_RANK[role] < ROLE_RANK.owner) await assertNotLastOwner(actor.orgId, target.role);
      await orgs.updateMemberRole(actor.orgId, memberId, role);
      await audit.record(actor.orgId, actor.label, "member.role-changed", target.email, {
        from: target.role,
        to: role,
      });
    },

    async removeMember(actor: Actor, memberId: string): Promise<void> {
      const target = await member(actor, memberId);
      assertMayManage(actor, target.role);
      await assertNotLastOwner(actor.orgId, target.role);
      await orgs.removeMember(actor.orgId, memberId);
      await audit.record(actor.orgId, actor.label, "member.removed", target.email, { role: target.role });
    },

    async leave(actor: Actor): Promise<void> {
      const me = (await orgs.listMembers(actor.orgId)).find((m) => m.userId === actor.userId);
      if (!me) throw new ThrongError("not_found", "You are not a member of this organisation");
      await assertNotLastOwner(actor.orgId, me.role);
      await orgs.removeMember(actor.orgId, me.id);
      await audit.record(actor.orgId, actor.label, "member.left", me.email);
    },

    async createInvitation(actor: Actor, body: CreateInvitation): Promise<InvitationCreated> {
      assertMayManage(actor, "member", body.role);
      const token = generateSecret(INVITATION_PREFIX);
      const id = crypto.randomUUID();
      const expiresAt = new Date(clock.now() + body.expiresInHours * 3_600_000);
      await orgs.insertInvitation(actor.orgId, {
        id,
        tokenHash: hashSecret(token),
        role: body.role,
        createdBy: actor.userId,
        expiresAt,
      });
      await audit.record(actor.orgId, actor.label, "invitation.created", id, {
        role: body.role,
        expiresAt: expiresAt.toISOString(),
      });
      return {
        id,
        token,
        role: body.role,
        expiresAt: expiresAt.toISOString(),
        link: `${deps.webOrigin}/invite/${token}`,
      };
    },

    async invitations(actor: Actor): Promise<InvitationView[]> {
      authorize(actor, "member.manage");
      return (await orgs.listPendingInvitations(actor.orgId, now())).map((i) => ({
        id: i.id,
        role: Role.parse(i.role),
        expiresAt: i.expiresAt.toISOString(),
        createdBy: i.createdBy,
      }));
    },

    async revokeInvitation(actor: Actor, id: string): Promise<void> {
      authorize(actor, "member.manage");
      if (!(await orgs.revokeInvitation(actor.orgId, id)))
        throw new ThrongError("not_found", `No pending invitation ${id} in this organisation`);
      await audit.record(actor.orgId, actor.label, "invitation.revoked", id);
    },

    /** Anyone holding the link may see which organisation and role it is for, before signing up. */
    async previewInvitation(token: string): Promise<InvitationPreview> {
      const refused = new ThrongError(
        "not_found",
        "This invitation link is unknown, expired, used or revoked: ask for a new one",
      );
      const secret = token.trim().split("/").pop() ?? "";
      const invitation = await findLiveSecret(secret, INVITATION_PREFIX, orgs.findInvitationByHash, clock.now());
      if (!invitation || invitation.acceptedAt) throw refused;
      const org = await orgs.getOrganization(invitation.orgId);
      return {
        orgName: org?.name ?? "",
        role: Role.parse(invitation.role),
        expiresAt: invitation.expiresAt.toISOString(),
      };
    },

    /** Any signed-in user with a valid link joins the link's organisation with its role. */
    async acceptInvitation(user: { id: string; email: string }, input: AcceptInvitation): Promise<{ orgId: string }> {
      const { token } = input;
      const secret = token.trim().split("/").pop() ?? "";
      const refused = new ThrongError(
        "not_found",
        "This invitation link is unknown, expired, used or revoked: ask for a new one",
      );
      const invitation = await findLiveSecret(secret, INVITATION_PREFIX, orgs.findInvitationByHash, clock.now());
      if (!invitation || invitation.acceptedAt) throw refused;
      if (await orgs.membership(user.id, invitation.orgId))
        throw new ThrongError("conflict", "You are already a member of this organisation");
      if (!(await orgs.acceptInvitation(invitation.orgId, invitation.id, user.id))) throw refused;
      await orgs.addMember(invitation.orgId, user.id, invitation.role);
      await audit.record(invitation.orgId, user.email, "member.joined", user.email, {
        role: invitation.role,
        invitation: invitation.id,
      });
      return { orgId: invitation.orgId };
    },

    async settings(actor: Actor): Promise<OrgSettings> {
      authorize(actor, "settings.read");
      return OrgSettings.parse((await orgs.getSettings(actor.orgId)) ?? {});
    },

    async saveSettings(actor: Actor, settings: OrgSettings): Promise<OrgSettings> {
      authorize(actor, "settings.manage");
      await orgs.putSettings(actor.orgId, settings);
      await audit.record(actor.orgId, actor.label, "settings.changed", null, settings);
      return settings;
    },
  };
}
export type OrgService = ReturnType<typeof createOrgService>;
