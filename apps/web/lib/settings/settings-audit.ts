// Audit entries as the audit log table shows them. Pure; no React.
import type { AuditEntry } from "@throng/protocol/orgs";
import { formatDateTime, formatInteger, shortId } from "../shared/format";

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
  "share-link.created": "Created a report share link",
  "share-link.revoked": "Revoked a report share link",
  "agent.enrolled": "Enrolled an agent",
  "agent.revoked": "Revoked an agent",
  "agent.labels-changed": "Changed an agent's labels",
  "enrolment-token.created": "Created an enrolment token",
  "schedule.run-not-started": "A scheduled run did not start",
  "schedule.set": "Scheduled a plan's runs",
  "schedule.removed": "Stopped a plan's schedule",
  "schedule.paused": "Paused a plan's schedule",
  "schedule.resumed": "Resumed a plan's schedule",
  "notification-channel.created": "Added a notification channel",
  "notification-channel.removed": "Removed a notification channel",
  "script.stored": "Stored a script",
  "run.aborted": "Aborted a run",
  "secret.created": "Added a secret",
  "secret.replaced": "Replaced a secret's value",
  "secret.deleted": "Deleted a secret",
  "sso.domain-added": "Claimed an email domain for SSO",
  "sso.domain-verified": "Verified an email domain",
  "sso.domain-removed": "Gave up an email domain",
  "sso.provider-added": "Added an identity provider",
  "sso.provider-changed": "Changed an identity provider",
  "sso.provider-disabled": "Turned an identity provider off",
  "sso.provider-enabled": "Turned an identity provider on",
  "sso.provider-removed": "Removed an identity provider",
  "sso.required": "Required single sign-on",
  "sso.not-required": "Stopped requiring single sign-on",
  "sso.signed-in": "Signed in with SSO",
  "sso.member-joined": "Joined through SSO",
  "sso.break-glass-sign-in": "Owner signed in with a password while SSO is required",
};

/** What a detail's key reads as in the Details column; unknown keys are made readable from their name. */
const DETAIL_KEYS: Record<string, string> = {
  expiresAt: "expires",
  runId: "run",
  singleUse: "single use",
  targetAllowList: "allowed targets",
  maxClients: "max clients",
  maxDurationSec: "max duration (s)",
  token: "enrolment token",
  invitation: "invitation",
  sizeBytes: "size (bytes)",
  timezone: "time zone",
};

const keyText = (key: string) => DETAIL_KEYS[key] ?? key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();

/** What kind of thing an action's target is, so a row says "API token “nightly”" rather than an id. */
const TARGET_NOUNS: Record<string, string> = {
  "api-token": "API token",
  invitation: "invitation",
  "share-link": "share link",
  agent: "agent",
  schedule: "schedule of plan",
  "notification-channel": "notification channel",
  script: "script",
  run: "run",
  secret: "secret",
};

/**
 * Names for the targets of an audit log's rows, learnt from the rows that created them (a token's name, an
 * agent's hostname, an invitation's role), so a later "revoked" row names the same thing.
 */
export function targetNames(
  entries: readonly Pick<AuditEntry, "action" | "target" | "details">[],
): Map<string, string> {
  const names = new Map<string, string>();
  for (const { action, target, details } of entries) {
    if (!target) continue;
    const name =
      typeof details.name === "string" ? details.name : typeof details.hostname === "string" ? details.hostname : null;
    // A run is named by its id, of its plan: "run 1a2b3c4d… of “Lobby soak”".
    if (name && action.startsWith("run.")) names.set(target, `${shortId(target)} of “${name}”`);
    else if (name) names.set(target, `“${name}”`);
    else if (action === "invitation.created" && typeof details.role === "string")
      names.set(target, `for a ${details.role}`);
    else if (action === "share-link.created" && typeof details.runId === "string")
      names.set(target, `of run ${shortId(details.runId)}`);
  }
  return names;
}

/** The Target column: the thing by its kind and name ("API token “nightly”"), an email as it is, else a short id. */
export function describeTarget(
  entry: Pick<AuditEntry, "action" | "target">,
  names: ReadonlyMap<string, string>,
): string {
  if (!entry.target) return "—";
  const noun = TARGET_NOUNS[entry.action.split(".")[0] ?? ""];
  const name = names.get(entry.target);
  if (!noun) return shortId(entry.target);
  return `${noun} ${name ?? shortId(entry.target)}`;
}

/** A readable name for an action code; unknown codes (newer APIs) read from their words ("thing.done" → "Thing done"). */
export function describeAction(action: string): string {
  const words = action.replace(/[.-]/g, " ");
  return ACTIONS[action] ?? words.charAt(0).toUpperCase() + words.slice(1);
}

const MAX_VALUE = 80;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Detail keys whose empty value has a meaning: no expiry is "never", not a missing value. */
const EMPTY_MEANS: Record<string, string> = { expiresAt: "never" };

function valueText(value: unknown, key?: string): string {
  if (value === null || value === undefined) return (key && EMPTY_MEANS[key]) ?? "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return Number.isInteger(value) ? formatInteger(value) : String(value);
  if (Array.isArray(value)) return value.length ? value.map((item) => valueText(item)).join(", ") : "(none)";
  if (typeof value === "object") return JSON.stringify(value);
  // Times (an invitation's expiry) read like the Time column rather than raw ISO.
  if (typeof value === "string" && ISO_TIME.test(value)) return formatDateTime(value);
  return typeof value === "string" ? shortId(value) : String(value);
}

/** "from: viewer → member" for role changes, else "key: value" pairs in words, long values cut short; a name the Target column shows is left out. */
export function describeDetails(entry: Pick<AuditEntry, "action" | "details">): string {
  const { details } = entry;
  if (typeof details.from === "string" && typeof details.to === "string") return `${details.from} → ${details.to}`;
  return (
    Object.entries(details)
      // The Target column already names these: a token's name, an agent's host, a share link's run.
      .filter(
        ([key]) => key !== "name" && key !== "hostname" && !(key === "runId" && entry.action.startsWith("share-link.")),
      )
      .map(([key, value]) => {
        const text = valueText(value, key);
        return `${keyText(key)}: ${text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text}`;
      })
      .join("; ")
  );
}
