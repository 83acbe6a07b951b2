// Audit entries as the audit log table shows them. Pure; no React.
import type { AuditEntry } from "@throng/protocol/orgs";
import { formatDateTime } from "./format";

const ACTIONS: Record<string, string> = {
  "member.role-changed": "Changed a member's role",
  "member.removed": "Removed a member",
  "member.left": "Left the organisation",
  "member.joined": "Joined by invitation",
  "invitation.created": "Created an invitation",
  "invitation.revoked": "Revoked an invitation",
  "api-token.created": "Created an API token",
  "api-token.revoked": "Revoked an API token",
  "settings.changed": "Changed organisation settings",
};

/** A readable name for an action code; unknown codes (newer APIs) show as they are. */
export function describeAction(action: string): string {
  return ACTIONS[action] ?? action;
}

const MAX_VALUE = 80;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids (tokens, invitations) by their first block, like git's short hashes; callers keep the full id in a title. */
export function shortId(value: string): string {
  return UUID.test(value) ? `${value.slice(0, 8)}…` : value;
}
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function valueText(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.length ? value.map(valueText).join(", ") : "(none)";
  if (typeof value === "object") return JSON.stringify(value);
  // Times (an invitation's expiry) read like the Time column rather than raw ISO.
  if (typeof value === "string" && ISO_TIME.test(value)) return formatDateTime(value);
  return typeof value === "string" ? shortId(value) : String(value);
}

/** "from: viewer → member" for role changes, else "key: value" pairs, long values cut short. */
export function describeDetails(entry: Pick<AuditEntry, "action" | "details">): string {
  const { details } = entry;
  if (typeof details.from === "string" && typeof details.to === "string") return `${details.from} → ${details.to}`;
  return Object.entries(details)
    .map(([key, value]) => {
      const text = valueText(value);
      return `${key}: ${text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text}`;
    })
    .join("; ");
}
