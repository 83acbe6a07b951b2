import type { Db } from "../client";

export interface Membership {
  orgId: string;
  orgName: string;
  orgSlug: string;
  role: string;
}

/** Organisations and memberships (tables owned by Better Auth's organization plugin). */
export function createOrgRepo(db: Db) {
  const membershipQuery = (userId: string) =>
    db
      .selectFrom("member as m")
      .innerJoin("organization as o", "o.id", "m.organizationId")
      .select(["o.id as orgId", "o.name as orgName", "o.slug as orgSlug", "m.role"])
      .where("m.userId", "=", userId);

  return {
    /** A new user's own organisation, with the user as owner, in one transaction. */
    async createOwnedOrganization(userId: string, org: { id: string; name: string; slug: string }): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const now = new Date();
        await tx.insertInto("organization").values({ id: org.id, name: org.name, slug: org.slug, logo: null, createdAt: now, metadata: null }).execute();
        await tx.insertInto("member").values({ id: crypto.randomUUID(), organizationId: org.id, userId, role: "owner", createdAt: now }).execute();
      });
    },
    async membership(userId: string, orgId: string): Promise<Membership | undefined> {
      return membershipQuery(userId).where("o.id", "=", orgId).executeTakeFirst();
    },
    async firstMembership(userId: string): Promise<Membership | undefined> {
      return membershipQuery(userId).orderBy("m.createdAt", "asc").limit(1).executeTakeFirst();
    },
  };
}
export type OrgRepo = ReturnType<typeof createOrgRepo>;
