import type { AuditEntry } from "@throng/protocol/orgs";
import type { SecurityRepo } from "@throng/db/repos/security";
import { authorize, type Actor } from "./permissions";

/** Sensitive actions, as the audit log names them. */
export type AuditAction =
  | "enrolment-token.created"
  | "agent.enrolled"
  | "agent.revoked"
  | "agent.labels-changed"
  | "api-token.created"
  | "api-token.revoked"
  | "member.joined"
  | "member.role-changed"
  | "member.removed"
  | "member.left"
  | "invitation.created"
  | "invitation.revoked"
  | "settings.changed"
  | "share-link.created"
  | "share-link.revoked"
  | "notification-channel.created"
  | "notification-channel.removed"
  | "schedule.set"
  | "schedule.removed"
  | "schedule.paused"
  | "schedule.resumed"
  | "schedule.run-not-started"
  | "script.stored"
  | "run.aborted"
  | "secret.created"
  | "secret.replaced"
  | "secret.deleted"
  | "sso.domain-added"
  | "sso.domain-verified"
  | "sso.domain-removed"
  | "sso.provider-added"
  | "sso.provider-changed"
  | "sso.provider-removed"
  | "sso.provider-disabled"
  | "sso.provider-enabled"
  | "sso.required"
  | "sso.not-required"
  | "sso.signed-in"
  | "sso.member-joined"
  | "sso.break-glass-sign-in";

/** Appends to an org's audit log; the log never holds a secret, only what was done to what, by whom. */
export function createAuditLog(deps: { security: SecurityRepo }) {
  const { security } = deps;
  return {
    async record(
      orgId: string,
      actor: string,
      action: AuditAction,
      target: string | null,
      details: Record<string, unknown> = {},
    ) {
      await security.insertAudit(orgId, { actor, action, target, details });
    },
    async list(actor: Actor): Promise<AuditEntry[]> {
      authorize(actor, "audit.read");
      return (await security.listAudit(actor.orgId)).map((row) => ({
        at: row.at.toISOString(),
        actor: row.actor,
        action: row.action,
        target: row.target,
        details: row.details,
      }));
    },
  };
}
export type AuditLog = ReturnType<typeof createAuditLog>;
