import type { Db } from "../client";
import { deleteOrgRow, selectOrgRows, updateOrgRow } from "./org-rows";

export interface Membership {
  orgId: string;
  orgName: string;
  orgSlug: string;
  role: string;
}

export interface MemberRow {
  id: string;
  userId: string;
  email: string;
  name: string;
  role: string;
  joinedAt: Date;
}

export interface InvitationRow {
  id: string;
  orgId: string;
  role: string;
  createdBy: string | null;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
}

/** Organisations, memberships and invitation links (organization/member are Better Auth's tables). */
export function createOrgRepo(db: Db) {
  const membershipQuery = (userId: string) =>
    db
      .selectFrom("member as m")
      .innerJoin("organization as o", "o.id", "m.organizationId")
      .select(["o.id as orgId", "o.name as orgName", "o.slug as orgSlug", "m.role"])
      .where("m.userId", "=", userId);
  const invitationColumns = [
    "id",
    "org_id as orgId",
    "role",
    "created_by as createdBy",
    "expires_at as expiresAt",
    "accepted_at as acceptedAt",
    "revoked_at as revokedAt",
  ] as const;

  return {
    /** A new user's own organisation, with the user as owner, in one transaction. */
    async createOwnedOrganization(userId: string, org: { id: string; name: string; slug: string }): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const now = new Date();
        await tx
          .insertInto("organization")
          .values({ id: org.id, name: org.name, slug: org.slug, logo: null, createdAt: now, metadata: null })
          .execute();
        await tx
          .insertInto("member")
          .values({ id: crypto.randomUUID(), organizationId: org.id, userId, role: "owner", createdAt: now })
          .execute();
      });
    },
    async membership(userId: string, orgId: string): Promise<Membership | undefined> {
      return membershipQuery(userId).where("o.id", "=", orgId).executeTakeFirst();
    },
    async firstMembership(userId: string): Promise<Membership | undefined> {
      return membershipQuery(userId).orderBy("m.createdAt", "asc").limit(1).executeTakeFirst();
    },
    async getOrganization(orgId: string): Promise<{ id: string; name: string; slug: string } | undefined> {
      return db.selectFrom("organization").select(["id", "name", "slug"]).where("id", "=", orgId).executeTakeFirst();
    },
    async listMemberships(userId: string): Promise<Membership[]> {
      return membershipQuery(userId).orderBy("o.name").execute();
    },
    async listMembers(orgId: string): Promise<MemberRow[]> {
      return db
        .selectFrom("member as m")
        .innerJoin("user as u", "u.id", "m.userId")
        .select(["m.id", "m.userId", "u.email", "u.name", "m.role", "m.createdAt as joinedAt"])
        .where("m.organizationId", "=", orgId)
        .orderBy("m.createdAt")
        .execute();
    },
    async addMember(orgId: string, userId: string, role: string): Promise<void> {
      await db
        .insertInto("member")
        .values({ id: crypto.randomUUID(), organizationId: orgId, userId, role, createdAt: new Date() })
        .execute();
    },
    async updateMemberRole(orgId: string, memberId: string, role: string): Promise<boolean> {
      const result = await updateOrgRow(db, "member", orgId, "id", memberId).set({ role }).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async removeMember(orgId: string, memberId: string): Promise<boolean> {
      return deleteOrgRow(db, "member", orgId, "id", memberId);
    },
    /** Points one session at another organisation (the user's membership is checked by the caller). */
    async setSessionOrg(userId: string, sessionId: string, orgId: string): Promise<void> {
      await db
        .updateTable("session")
        .set({ activeOrganizationId: orgId })
        .where("id", "=", sessionId)
        .where("userId", "=", userId)
        .execute();
    },
    async insertInvitation(
      orgId: string,
      inv: { id: string; tokenHash: string; role: string; createdBy: string; expiresAt: Date },
    ) {
      await db
        .insertInto("org_invitations")
        .values({
          id: inv.id,
          org_id: orgId,
          token_hash: inv.tokenHash,
          role: inv.role,
          created_by: inv.createdBy,
          expires_at: inv.expiresAt,
        })
        .execute();
    },
    /** By the link's secret: the only invitation lookup without an orgId, because the link names the org. */
    async findInvitationByHash(tokenHash: string): Promise<InvitationRow | undefined> {
      return db
        .selectFrom("org_invitations")
        .select(invitationColumns)
        .where("token_hash", "=", tokenHash)
        .executeTakeFirst();
    },
    async listPendingInvitations(orgId: string, now: Date): Promise<InvitationRow[]> {
      return selectOrgRows(db, "org_invitations", orgId)
        .select(invitationColumns)
        .where("accepted_at", "is", null)
        .where("revoked_at", "is", null)
        .where("expires_at", ">", now)
        .orderBy("created_at", "desc")
        .execute();
    },
    /** Spends the invitation; false when it was spent or revoked meanwhile. */
    async acceptInvitation(orgId: string, id: string, userId: string): Promise<boolean> {
      const result = await updateOrgRow(db, "org_invitations", orgId, "id", id)
        .set({ accepted_at: new Date(), accepted_by: userId })
        .where("accepted_at", "is", null)
        .where("revoked_at", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async revokeInvitation(orgId: string, id: string): Promise<boolean> {
      const result = await updateOrgRow(db, "org_invitations", orgId, "id", id)
        .set({ revoked_at: new Date() })
        .where("revoked_at", "is", null)
        .where("accepted_at", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async getSettings(orgId: string): Promise<unknown | undefined> {
      return (await selectOrgRows(db, "org_settings", orgId).select("settings").executeTakeFirst())?.settings;
    },
    async putSettings(orgId: string, settings: unknown): Promise<void> {
      const json = JSON.stringify(settings);
      await db
        .insertInto("org_settings")
        .values({ org_id: orgId, settings: json })
        .onConflict((oc) => oc.column("org_id").doUpdateSet({ settings: json }))
        .execute();
    },
  };
}
export type OrgRepo = ReturnType<typeof createOrgRepo>;
