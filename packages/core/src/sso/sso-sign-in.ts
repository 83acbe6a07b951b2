import { ThrongError } from "@throng/protocol/errors";
import { JoinRole, RoleRule } from "@throng/protocol/sso";
import type { OrgRepo } from "@throng/db/repos/orgs";
import type { SsoRepo } from "@throng/db/repos/sso";
import type { Clock } from "../ports";
import type { AuditLog } from "../orgs/audit";
import type { Role } from "../orgs/permissions";
import { ROLE_CLAIM_FIELD } from "./sso-config";
import { samlFailure, type SamlFailure, type SamlResponseFacts } from "./saml-failure";
import { emailDomain, joinRole } from "./sso-rules";

/** What to do with a person the identity provider vouched for (Better Auth's SSO plugin resolveUser answer). */
export type Admission =
  | { action: "continue" }
  | { action: "link"; userId: string; profile: "preserve" }
  | { action: "reject"; code: string; message: string };

/** A session as the identity resolver sees it, for the SSO rules. */
export interface SessionFacts {
  sessionId: string;
  orgId: string;
  role: Role;
  /** The provider the session was opened through; null for the password form. */
  ssoProviderId: string | null;
  createdAt: Date;
}

/**
 * The sign-in side of single sign-on: which provider an email signs in through, who may join through it and with
 * which role (just in time, audit-logged), what "Require SSO" refuses, and how long an SSO session lasts.
 */
export function createSsoSignIn(deps: {
  sso: SsoRepo;
  orgs: OrgRepo;
  audit: AuditLog;
  clock: Clock;
  ssoSessionHours: number;
  /** Reads a refused SAMLResponse against the IdP's metadata XML (null: not a readable response). */
  readSamlResponse: (samlResponse: string, idpMetadataXml: string) => SamlResponseFacts | null;
}) {
  const { sso, orgs, audit, clock } = deps;

  return {
    /** The provider for a work email: the one its organisation signs that verified domain in through. */
    async providerForEmail(email: string): Promise<{ providerId: string; name: string }> {
      const domain = emailDomain(email);
      const holder = domain ? await sso.findVerifiedDomain(domain) : undefined;
      if (!domain || !holder) {
        throw new ThrongError(
          "not_found",
          `No organisation on this Throng signs in ${domain ?? "that address"} with single sign-on: check the address for a typo, or sign in with your password; an admin can set SSO up under Settings → Single sign-on`,
        );
      }
      const provider = (await sso.listProviders(holder.orgId)).find((p) => p.domains.includes(domain));
      if (!provider)
        throw new ThrongError(
          "not_found",
          `${domain} is verified, but no identity provider signs it in yet: ask your Throng admin to add one under Settings → Single sign-on`,
        );
      if (!provider.enabled)
        throw new ThrongError(
          "conflict",
          `${provider.name}, the identity provider for ${domain}, is turned off in Throng: ask your Throng admin, or sign in with your password if your organisation allows it`,
        );
      if (!provider.domainVerified) {
        throw new ThrongError(
          "conflict",
          `${provider.name} also signs in a domain that is not verified yet (${provider.domains.join(", ")}): ask your Throng admin to verify it or take it off the provider`,
        );
      }
      return { providerId: provider.providerId, name: provider.name };
    },

    /**
     * Runs inside the plugin's sign-in, before any account is made: the email must be in a verified domain of the
     * provider's organisation (a provider cannot vouch for another company's people). An existing account with that
     * email is signed in (the organisation proved it owns the domain); otherwise a new one is made.
     */
    async admit(input: { providerId: string; email: string }): Promise<Admission> {
      const provider = await sso.findProvider(input.providerId);
      const domain = emailDomain(input.email);
      const holder = domain ? await sso.findVerifiedDomain(domain) : undefined;
      if (!provider || !domain || !provider.domains.includes(domain) || holder?.orgId !== provider.orgId) {
        return {
          action: "reject",
          code: "sso_domain_not_verified",
          message: `${input.email} is not in a verified domain of this identity provider (${provider?.domains.join(", ") ?? "none"})`,
        };
      }
      if (!provider.enabled)
        return { action: "reject", code: "sso_provider_disabled", message: `${provider.name} is turned off in Throng` };
      const userId = await sso.findUserIdByEmail(input.email);
      return userId ? { action: "link", userId, profile: "preserve" } : { action: "continue" };
    },

    /** After the plugin's sign-in: joins the person to the provider's organisation (just in time) and logs both. */
    async signedIn(input: {
      providerId: string;
      userId: string;
      email: string;
      profile: Record<string, unknown>;
    }): Promise<void> {
      const provider = await sso.findProvider(input.providerId);
      if (!provider) return;
      const membership = await orgs.membership(input.userId, provider.orgId);
      await audit.record(provider.orgId, input.email, "sso.signed-in", input.email, {
        provider: provider.providerId,
        via: provider.name,
      });
      if (membership) return;
      const role = joinRole(
        input.profile[ROLE_CLAIM_FIELD],
        provider.roleRules.map((r) => RoleRule.parse(r)),
        JoinRole.parse(provider.defaultRole),
      );
      await orgs.addMember(provider.orgId, input.userId, role);
      await audit.record(provider.orgId, input.email, "sso.member-joined", input.email, {
        provider: provider.providerId,
        role,
        roleClaim: provider.roleClaim,
      });
    },

    /**
     * Why the SSO plugin refused a SAML response ("Invalid SAML response" covers them all): unsigned, forged,
     * clock skew or expired, for the sign-in page's words. Null: none of these, the plugin's words stand.
     */
    async explainSamlFailure(providerId: string, samlResponse: string): Promise<SamlFailure | null> {
      const config = (await sso.findProvider(providerId))?.samlConfig;
      const metadata = config
        ? (JSON.parse(config) as { idpMetadata?: { metadata?: string } }).idpMetadata?.metadata
        : undefined;
      const facts = metadata ? deps.readSamlResponse(samlResponse, metadata) : null;
      return facts ? samlFailure(facts, clock.now()) : null;
    },

    /** The organisation a sign-in through this provider lands in. */
    async providerOrg(providerId: string): Promise<string | undefined> {
      return (await sso.findProvider(providerId))?.orgId;
    },

    /**
     * The password form, after the password was checked: refused to members of an organisation that requires SSO;
     * its owners get in (break-glass, so an IdP outage cannot lock everyone out), each time audit-logged.
     */
    async checkPasswordSignIn(input: { userId: string; email: string }): Promise<void> {
      const required = await sso.ssoRequiredMemberships(input.userId);
      const refused = required.filter((m) => m.role !== "owner");
      if (refused.length) {
        throw new ThrongError(
          "forbidden",
          `${refused.map((m) => m.orgName).join(", ")} requires single sign-on: use “Sign in with SSO” with your work email. Your password no longer signs you in; API tokens keep working.`,
        );
      }
      for (const m of required)
        await audit.record(m.orgId, input.email, "sso.break-glass-sign-in", input.email, {
          reason: "owner signed in with a password while SSO is required",
        });
    },

    /**
     * Every request with a session: an SSO session ends `ssoSessionHours` after its sign-in whatever happens at the
     * provider; in an organisation that requires SSO, a member's session must come from one of its providers.
     */
    async checkSession(session: SessionFacts): Promise<void> {
      if (session.ssoProviderId && clock.now() - session.createdAt.getTime() > deps.ssoSessionHours * 3_600_000) {
        await sso.deleteSession(session.sessionId);
        throw new ThrongError(
          "unauthenticated",
          `Your single sign-on session ended ${deps.ssoSessionHours} hours after you signed in: sign in with SSO again`,
        );
      }
      if (session.role === "owner" || !(await sso.requiresSso(session.orgId))) return;
      const providerOrg = session.ssoProviderId ? (await sso.findProvider(session.ssoProviderId))?.orgId : undefined;
      if (providerOrg !== session.orgId) {
        throw new ThrongError(
          "unauthenticated",
          "This organisation requires single sign-on: sign out and use “Sign in with SSO” with your work email",
        );
      }
    },
  };
}
export type SsoSignInService = ReturnType<typeof createSsoSignIn>;
