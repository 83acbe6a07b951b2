import { createHash } from "node:crypto";
import { sql } from "kysely";
import type { ErrorSample } from "@throng/protocol/error-samples";
import type { Db } from "../client";
import { selectOrgRows } from "./org-rows";

export interface ErrorSampleRow extends ErrorSample {
  agentId: string;
}

const fingerprint = (sample: ErrorSample) =>
  createHash("md5")
    .update(`${sample.message}\u0000${sample.bytes?.hex ?? ""}`)
    .digest("hex");

/** A run's first distinct error samples per kind (agent/PROTOCOL.md §5.2); every method takes the org. */
export function createErrorSampleRepo(db: Db) {
  return {
    /**
     * Keeps each sample not kept yet (same kind, message and bytes) while its kind has fewer than `perKind`: under a
     * lock per run and kind, so agents on several api instances never keep more. Returns how many were kept.
     */
    async add(
      orgId: string,
      runId: string,
      agentId: string,
      samples: readonly ErrorSample[],
      perKind: number,
    ): Promise<number> {
      if (samples.length === 0) return 0;
      return db.transaction().execute(async (tx) => {
        let kept = 0;
        const kinds = [...new Set(samples.map((sample) => sample.kind))].sort();
        for (const kind of kinds) {
          await sql`select pg_advisory_xact_lock(hashtext(${`error-samples:${runId}:${kind}`}))`.execute(tx);
          const { count } = await tx
            .selectFrom("run_error_samples")
            .select((eb) => eb.fn.countAll<string>().as("count"))
            .where("run_id", "=", runId)
            .where("kind", "=", kind)
            .executeTakeFirstOrThrow();
          const room = perKind - Number(count);
          const rows = samples.filter((sample) => sample.kind === kind).slice(0, Math.max(0, room));
          if (rows.length === 0) continue;
          const result = await tx
            .insertInto("run_error_samples")
            .values(
              rows.map((sample) => ({
                run_id: runId,
                kind,
                fingerprint: fingerprint(sample),
                org_id: orgId,
                agent_id: agentId,
                message: sample.message,
                at: sample.at,
                client: sample.client ?? null,
                bytes_length: sample.bytes?.length ?? null,
                bytes_hex: sample.bytes?.hex ?? null,
              })),
            )
            .onConflict((oc) => oc.columns(["run_id", "kind", "fingerprint"]).doNothing())
            .executeTakeFirst();
          kept += Number(result.numInsertedOrUpdatedRows ?? 0);
        }
        return kept;
      });
    },

    /** The run's samples in the order they happened. */
    async listRun(orgId: string, runId: string): Promise<ErrorSampleRow[]> {
      const rows = await selectOrgRows(db, "run_error_samples", orgId)
        .select([
          "kind",
          "message",
          "at",
          "client",
          "agent_id as agentId",
          "bytes_length as bytesLength",
          "bytes_hex as bytesHex",
        ])
        .where("run_id", "=", runId)
        .orderBy("at")
        .orderBy("kind")
        .orderBy("fingerprint")
        .execute();
      return rows.map(({ bytesLength, bytesHex, client, at, ...row }) => ({
        ...row,
        at: Number(at),
        ...(client !== null ? { client } : {}),
        ...(bytesHex !== null ? { bytes: { length: bytesLength ?? bytesHex.length / 2, hex: bytesHex } } : {}),
      }));
    },
  };
}
export type ErrorSampleRepo = ReturnType<typeof createErrorSampleRepo>;
