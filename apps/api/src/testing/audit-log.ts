import { AuditEntry } from "@throng/protocol/orgs";
import type { TestUser } from "./test-api";

/** The organisation's audit log as `user` reads it (GET /api/audit), each entry checked against its schema. */
export async function auditLog(user: Pick<TestUser, "request">): Promise<AuditEntry[]> {
  const answer = await user.request<{ entries: unknown[] }>("GET", "/api/audit");
  return answer.json.entries.map((entry) => AuditEntry.parse(entry));
}
