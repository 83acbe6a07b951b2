import { sql } from "kysely";
import type { Db } from "../client";
import { deleteOrgRow, selectOrgRow, selectOrgRows, updateOrgRow } from "./org-rows";

export interface SsoProviderRow {
  providerId: string;
  orgId: string;
  name: string;
  issuer: string;
  /** The plugin's JSON, secrets sealed inside it. */
  oidcConfig: string | null;
  samlConfig: string | null;
  domains: string[];
  domainVerified: boolean;
  /** Turned off by an admin: signs nobody in, keeps its settings. */
  enabled: boolean;
  roleClaim: string | null;
  roleRules: { value: string; role: string }[];
  defaultRole: string;
  metadataUrl: string | null;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What Throng writes about a provider; the plugin's own columns are derived from it. */
export interface SsoProviderWrite {
  name: string;
  issuer: string;
  oidcConfig: string | null;
  samlConfig: string | null;
  domains: string[];
  roleClaim: string | null;
  roleRules: { value: string; role: string }[];
  defaultRole: string;
  metadataUrl: string | null;
}

export interface SsoDomainRow {
  domain: string;
  token: string;
  verifiedAt: Date | null;
  verifiedBy: string | null;
  createdAt: Date;
}

const providerColumns = [
  "providerId",
  "organizationId as orgId",
  "name",
  "issuer",
  "oidcConfig",
  "samlConfig",
  "domain",
  "domainVerified",
  "role_claim as roleClaim",
  "role_rules as roleRules",
  "default_role as defaultRole",
  "metadata_url as metadataUrl",
  "enabled",
  "created_by as createdBy",
  "created_at as createdAt",
  "updated_at as updatedAt",
] as const;
const domainColumns = [
  "domain",
  "token",
  "verified_at as verifiedAt",
  "verified_by as verifiedBy",
  "created_at as createdAt",
] as const;

/** The columns Throng writes for a provider, from what it says of it. */
function writtenColumns(p: SsoProviderWrite) {
  return {
    name: p.name,
    issuer: p.issuer,
    oidcConfig: p.oidcConfig,
    samlConfig: p.samlConfig,
    domain: p.domains.join(","),
    role_claim: p.roleClaim,
    role_rules: JSON.stringify(p.roleRules),
    default_role: p.defaultRole,
    metadata_url: p.metadataUrl,
  };
}

function toProvider(row: { domain: string } & Omit<SsoProviderRow, "domains">): SsoProviderRow {
  const { domain, ...rest } = row;
  return { ...rest, domains: domain.split(",").filter(Boolean) };
}

/** A provider can sign people in only while every one of its domains is verified by its own organisation. */
async function refreshVerified(db: Db, orgId: string): Promise<void> {
  await sql`
    update "ssoProvider" p set "domainVerified" = not exists (
      select 1 from unnest(string_to_array(p."domain", ',')) as d(name)
      where not exists (select 1 from sso_domains s where s.org_id = p."organizationId" and s.domain = d.name and s.verified_at is not null)
    )
    where p."organizationId" = ${orgId}`.execute(db);
}

/** The org's identity providers, and one by Better Auth's provider id at sign-in. */
function createSsoProviders(db: Db) {
  return {
    async listProviders(orgId: string): Promise<SsoProviderRow[]> {
      const rows = await selectOrgRows(db, "ssoProvider", orgId)
        .select(providerColumns)
        .orderBy("created_at")
        .execute();
      return rows.map(toProvider);
    },
    async getProvider(orgId: string, providerId: string): Promise<SsoProviderRow | undefined> {
      const row = await selectOrgRow(db, "ssoProvider", orgId, "providerId", providerId)
        .select(providerColumns)
        .executeTakeFirst();
      return row && toProvider(row);
    },
    /** By Better Auth's provider id, at sign-in. */
    async findProvider(providerId: string): Promise<SsoProviderRow | undefined> {
      const row = await db
        .selectFrom("ssoProvider")
        .select(providerColumns)
        .where("providerId", "=", providerId)
        .executeTakeFirst();
      return row && toProvider(row);
    },
    async insertProvider(
      orgId: string,
      providerId: string,
      p: SsoProviderWrite,
      createdBy: string,
      userId: string | null,
    ): Promise<void> {
      await db
        .insertInto("ssoProvider")
        .values({
          id: crypto.randomUUID(),
          providerId,
          organizationId: orgId,
          userId,
          ...writtenColumns(p),
          created_by: createdBy,
        })
        .execute();
      await refreshVerified(db, orgId);
    },
    async updateProvider(orgId: string, providerId: string, p: SsoProviderWrite): Promise<boolean> {
      const result = await updateOrgRow(db, "ssoProvider", orgId, "providerId", providerId)
        .set({ ...writtenColumns(p), updated_at: new Date() })
        .executeTakeFirst();
      await refreshVerified(db, orgId);
      return Number(result.numUpdatedRows) === 1;
    },
    async setProviderEnabled(orgId: string, providerId: string, enabled: boolean): Promise<boolean> {
      const result = await updateOrgRow(db, "ssoProvider", orgId, "providerId", providerId)
        .set({ enabled, updated_at: new Date() })
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async deleteProvider(orgId: string, providerId: string): Promise<boolean> {
      return deleteOrgRow(db, "ssoProvider", orgId, "providerId", providerId);
    },
  };
}

/** The org's claimed email domains, and who holds a domain verified at sign-in. */
function createSsoDomains(db: Db) {
  return {
    async listDomains(orgId: string): Promise<SsoDomainRow[]> {
      return selectOrgRows(db, "sso_domains", orgId).select(domainColumns).orderBy("domain").execute();
    },
    async getDomain(orgId: string, domain: string): Promise<SsoDomainRow | undefined> {
      return selectOrgRow(db, "sso_domains", orgId, "domain", domain).select(domainColumns).executeTakeFirst();
    },
    /** Claims a domain; false when the org already has it. */
    async insertDomain(orgId: string, domain: string, token: string): Promise<boolean> {
      const result = await db
        .insertInto("sso_domains")
        .values({ org_id: orgId, domain, token })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    /** Marks the claim verified; false when another organisation holds the domain verified already. */
    async markDomainVerified(orgId: string, domain: string, by: string, at: Date): Promise<boolean> {
      try {
        await updateOrgRow(db, "sso_domains", orgId, "domain", domain)
          .set({ verified_at: at, verified_by: by })
          .execute();
      } catch (error) {
        if ((error as { code?: string }).code === "23505") return false;
        throw error;
      }
      await refreshVerified(db, orgId);
      return true;
    },
    async deleteDomain(orgId: string, domain: string): Promise<boolean> {
      const deleted = await deleteOrgRow(db, "sso_domains", orgId, "domain", domain);
      await refreshVerified(db, orgId);
      return deleted;
    },
    /** The organisation that holds `domain` verified, at sign-in (the email names it). */
    async findVerifiedDomain(domain: string): Promise<{ orgId: string } | undefined> {
      return db
        .selectFrom("sso_domains")
        .select("org_id as orgId")
        .where("domain", "=", domain)
        .where("verified_at", "is not", null)
        .executeTakeFirst();
    },
  };
}

/** "Require SSO", and what it needs of users and sessions at sign-in. */
function createSsoPolicy(db: Db) {
  return {
    async requiresSso(orgId: string): Promise<boolean> {
      return (
        (await selectOrgRows(db, "sso_policies", orgId).select("require_sso").executeTakeFirst())?.require_sso ?? false
      );
    },
    async setRequireSso(orgId: string, requireSso: boolean, by: string): Promise<void> {
      await db
        .insertInto("sso_policies")
        .values({ org_id: orgId, require_sso: requireSso, changed_by: by, changed_at: new Date() })
        .onConflict((oc) =>
          oc.column("org_id").doUpdateSet({ require_sso: requireSso, changed_by: by, changed_at: new Date() }),
        )
        .execute();
    },
    /** The user's memberships in organisations that require SSO, with the role held there. */
    async ssoRequiredMemberships(userId: string): Promise<{ orgId: string; orgName: string; role: string }[]> {
      return db
        .selectFrom("member as m")
        .innerJoin("sso_policies as p", "p.org_id", "m.organizationId")
        .innerJoin("organization as o", "o.id", "m.organizationId")
        .select(["m.organizationId as orgId", "o.name as orgName", "m.role"])
        .where("m.userId", "=", userId)
        .where("p.require_sso", "=", true)
        .execute();
    },
    async findUserIdByEmail(email: string): Promise<string | undefined> {
      return (await db.selectFrom("user").select("id").where("email", "=", email.toLowerCase()).executeTakeFirst())?.id;
    },
    /** Ends a session (an SSO session past its lifetime, refused on its next request). */
    async deleteSession(sessionId: string): Promise<void> {
      await db.deleteFrom("session").where("id", "=", sessionId).execute();
    },
  };
}

/**
 * Identity providers, claimed email domains and the "Require SSO" policy, scoped by orgId. The lookups without one
 * serve sign-in, where an email's domain or Better Auth's provider id is all there is.
 */
export function createSsoRepo(db: Db) {
  return {
    refreshVerified: (orgId: string) => refreshVerified(db, orgId),
    ...createSsoProviders(db),
    ...createSsoDomains(db),
    ...createSsoPolicy(db),
  };
}
export type SsoRepo = ReturnType<typeof createSsoRepo>;
