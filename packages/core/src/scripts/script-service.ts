import { createHash } from "node:crypto";
import { ThrongError } from "@throng/protocol/errors";
import { ScriptSha256, type UploadScript, type ScriptSummary, type ScriptView } from "@throng/protocol/script-bundle";
import type { ScriptRepo, ScriptRow, ScriptSummaryRow } from "@throng/db/repos/scripts";
import type { AuditLog } from "../orgs/audit";
import { authorize, type Actor } from "../orgs/permissions";

/** The hash a script is stored and referenced by: SHA-256 of its UTF-8 bytes, lower-case hex. */
export function scriptSha256(source: string): string {
  return createHash("sha256").update(source, "utf8").digest("hex");
}

function toSummary(row: ScriptSummaryRow): ScriptSummary {
  return { sha256: row.sha256, name: row.name, sizeBytes: row.sizeBytes, createdAt: row.createdAt.toISOString() };
}

function toView(row: ScriptRow): ScriptView {
  return { ...toSummary(row), source: row.source };
}

/** Uploading and reading an organisation's script bundles; reading takes plan.read, uploading plan.write (scripts are part of plans). */
export function createScriptService(deps: { scripts: ScriptRepo; audit?: Pick<AuditLog, "record"> }) {
  const { scripts } = deps;
  return {
    /** Stores the bundle under its hash; the same bytes again answer the stored summary (`created: false`). */
    async upload(actor: Actor, input: UploadScript): Promise<{ script: ScriptSummary; created: boolean }> {
      authorize(actor, "plan.write");
      const { name, source } = input;
      const bytes = Buffer.byteLength(source, "utf8");
      const { row, created } = await scripts.insert(actor.orgId, {
        sha256: scriptSha256(source),
        name,
        source,
        sizeBytes: bytes,
        createdBy: actor.userId,
      });
      if (created)
        await deps.audit?.record(actor.orgId, actor.label, "script.stored", row.sha256, {
          name: row.name,
          sizeBytes: row.sizeBytes,
        });
      return { script: toSummary(row), created };
    },
    async list(actor: Actor): Promise<ScriptSummary[]> {
      authorize(actor, "plan.read");
      return (await scripts.list(actor.orgId)).map(toSummary);
    },
    /** `sha256` as the route parsed it: 64 lower-case hex digits. */
    async get(actor: Actor, sha256: string): Promise<ScriptView> {
      authorize(actor, "plan.read");
      const row = await scripts.get(actor.orgId, sha256);
      if (!row)
        throw new ThrongError(
          "not_found",
          `No script bundle ${sha256} in this organisation: upload it first (throng script upload, or the Scripts page)`,
        );
      return toView(row);
    },
    /** Whether the org holds this bundle (plan checks). */
    async stored(orgId: string, sha256: string): Promise<boolean> {
      return (await scripts.existing(orgId, [sha256.toLowerCase()])).length > 0;
    },
    /** The source an agent of `orgId` asked for over its control connection; undefined when the org has no such bundle. */
    async sourceForAgent(orgId: string, sha256: string): Promise<string | undefined> {
      const parsed = ScriptSha256.safeParse(sha256.toLowerCase());
      return parsed.success ? (await scripts.get(orgId, parsed.data))?.source : undefined;
    },
  };
}
export type ScriptService = ReturnType<typeof createScriptService>;
