import type { JoinRole, RoleRule } from "@throng/protocol/sso";

/** The DNS name an organisation publishes its domain proof at (a name of its own, so it never clashes with SPF). */
export function txtRecordName(domain: string): string {
  return `_throng-verification.${domain}`;
}

/** The TXT record's value: the claim's random token. */
export function txtRecordValue(token: string): string {
  return `throng-verification=${token}`;
}

/** True when one of the TXT records (each a list of strings, joined as DNS does) carries the claim's token. */
export function provesDomain(records: string[][], token: string): boolean {
  const wanted = txtRecordValue(token);
  return records.some((chunks) => chunks.join("").trim() === wanted);
}

/** The domain of an email address, lower-cased; null when it has none. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf("@");
  const domain =
    at > 0
      ? email
          .slice(at + 1)
          .trim()
          .toLowerCase()
      : "";
  return domain.includes(".") ? domain : null;
}

/**
 * The role a person joins with: the first rule whose value the role claim holds (a string, a list of strings, or a
 * space- or comma-separated string as some providers send), else the default. Values compare exactly.
 */
export function joinRole(claim: unknown, rules: readonly RoleRule[], defaultRole: JoinRole): JoinRole {
  const values = new Set(claimValues(claim));
  return rules.find((rule) => values.has(rule.value))?.role ?? defaultRole;
}

function claimValues(claim: unknown): string[] {
  if (typeof claim === "string")
    return claim.includes(",") || claim.includes(" ")
      ? claim
          .split(/[,\s]+/)
          .filter(Boolean)
          .concat(claim)
      : [claim];
  if (Array.isArray(claim)) return claim.flatMap((value) => (typeof value === "string" ? [value] : []));
  return [];
}
